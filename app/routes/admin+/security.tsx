import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import {
  AdminErrorBoundary,
  AdminPage,
  adminHeaders,
  Panel,
  Stat,
  StatGrid,
} from "~/components/admin-dashboard/admin";
import { RelayStatusDetail } from "~/components/admin-dashboard/relay-status";
import { SeverityBadge } from "~/components/ui/badge";
import { DataTable } from "~/components/ui/data-table";
import { EVENT_LABELS, formatNumber, levels } from "~/modules/admin/admin-display";
import { getSecurityDashboard, type Trend } from "~/modules/admin/admin-metrics.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireAdmin } from "~/modules/auth/roles.server";
import {
  formatRate,
  postmasterOverview,
  REPUTATION_LIMITS,
  whyNotPaused,
} from "~/modules/deliverability/sender-reputation.server";
import { relayStatus } from "~/modules/sending/relay-hold.server";
import { formatUtc } from "~/platform/dates";
import { redirectRefreshed } from "~/platform/toast.server";

export const meta: MetaFunction = () => [
  { title: "Security Dashboard · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export const headers = adminHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request, "the security dashboard");
  const now = new Date();
  const postmaster = postmasterOverview(now);
  return data({
    generatedAt: now.toISOString(),
    security: getSecurityDashboard(now),
    postmaster: {
      service: {
        copies: postmaster.service.copies,
        complaintRate: formatRate(postmaster.service.complaintRate),
        bounceRate: formatRate(postmaster.service.bounceRate),
      },
      suppressed: postmaster.suppressed,
      senders: postmaster.senders.slice(0, POSTMASTER_SENDERS).map((sender) => ({
        ...sender,
        complaintRate: formatRate(sender.complaintRate),
        bounceRate: formatRate(sender.bounceRate),
        notPausedBecause: sender.paused ? null : whyNotPaused(sender),
      })),
      limits: {
        complaintRate: formatRate(REPUTATION_LIMITS.complaints.rate),
        bounceRate: formatRate(REPUTATION_LIMITS.hardBounces.rate),
      },
      relay: relayStatus(now),
    },
  });
}

/** The page's only form is Refresh. */
export async function action({ request }: ActionFunctionArgs) {
  await readProtectedForm(request);
  await requireAdmin(request, "the security dashboard");
  return redirectRefreshed(request);
}

/** The postmaster table's length: the worst senders, the paused first. */
const POSTMASTER_SENDERS = 20;

const ARROWS = { up: "↑", down: "↓", stable: "→" } as const;

function TrendStat({ label, trend }: { label: string; trend: Trend }) {
  return (
    <Stat
      label={label}
      value={
        <>
          <span aria-hidden="true">{ARROWS[trend.direction]} </span>
          <span className="capitalize">{trend.direction}</span>
        </>
      }
      hint={`${formatNumber(trend.current)} in the last 24 hours, ${formatNumber(trend.previous)} the 24 hours before`}
    />
  );
}

export default function SecurityDashboard() {
  const { generatedAt, security, postmaster } = useLoaderData<typeof loader>();
  const m = security.metrics;
  return (
    <AdminPage
      title="Security Dashboard"
      generatedAt={generatedAt}
      nav={
        <p className="mt-2 text-sm">
          <Link to="/admin/dashboard" className="font-semibold text-brand-800 underline">
            Back to the Admin Dashboard
          </Link>
        </p>
      }
    >
      <Panel title="Last 24 hours">
        <StatGrid>
          <Stat
            label="Critical alerts"
            value={formatNumber(m.criticalAlerts)}
            level={levels.criticalAlerts(m.criticalAlerts)}
          />
          <Stat
            label="Failed logins"
            value={formatNumber(m.failedLogins)}
            level={levels.failedLogins(m.failedLogins)}
          />
          <Stat label="File threats" value={formatNumber(m.totalFileThreats)} />
          <Stat label="Rate-limit violations" value={formatNumber(m.rateLimitViolations)} />
          <Stat
            label="Unauthorized access"
            value={formatNumber(m.unauthorizedAccess)}
            level={levels.unauthorizedAccess(m.unauthorizedAccess)}
          />
          <Stat label="Total security events" value={formatNumber(m.totalSecurityEvents)} />
          <Stat label="Two-factor set-ups" value={formatNumber(m.twoFactorEnrolments)} />
          <Stat label="Wrong two-factor codes" value={formatNumber(m.twoFactorFailures)} />
          <Stat label="Recovery codes used" value={formatNumber(m.recoveryCodesUsed)} />
          <Stat label="Mail to folders refused" value={formatNumber(m.inboundMailRefused)} />
        </StatGrid>
      </Panel>
      <Panel title="Trends">
        <StatGrid>
          <TrendStat label="Security events" trend={security.trends.securityEvents} />
          <TrendStat label="File threats" trend={security.trends.fileThreats} />
        </StatGrid>
      </Panel>
      <Panel title="Postmaster: the last 30 days">
        <StatGrid>
          <Stat label="Copies sent" value={formatNumber(postmaster.service.copies)} />
          <Stat
            label="Complaint rate"
            value={postmaster.service.complaintRate}
            hint={`A sender is paused at ${postmaster.limits.complaintRate}`}
          />
          <Stat
            label="Hard bounce rate"
            value={postmaster.service.bounceRate}
            hint={`A sender is paused at ${postmaster.limits.bounceRate}`}
          />
          <Stat
            label="Suppressed: no longer exist"
            value={formatNumber(postmaster.suppressed.hard_bounce)}
          />
          <Stat
            label="Suppressed: reported spam"
            value={formatNumber(postmaster.suppressed.complaint)}
          />
          <Stat
            label="Suppressed for a while: kept refusing"
            value={formatNumber(postmaster.suppressed.soft_bounce)}
          />
        </StatGrid>
        <div className="mt-3">
          <RelayStatusDetail relay={postmaster.relay} />
        </div>
        {postmaster.senders.length === 0 ? (
          <p className="mt-3 text-stone-700">No sender has sent anything in the last 30 days.</p>
        ) : (
          <DataTable
            caption="Senders by complaint and bounce rate"
            captionHidden
            className="mt-3"
            rows={postmaster.senders}
            rowKey={(sender) => sender.userId}
            columns={[
              {
                id: "sender",
                header: "Sender",
                cellClassName: "break-all",
                cell: (sender) => (
                  <Link to={`/admin/senders/${sender.userId}`} className="underline">
                    {sender.email}
                  </Link>
                ),
              },
              {
                id: "copies",
                header: "Copies",
                align: "end",
                cell: (sender) => formatNumber(sender.copies),
              },
              {
                id: "complaints",
                header: "Complaints",
                align: "end",
                cell: (sender) => `${formatNumber(sender.complaints)} (${sender.complaintRate})`,
              },
              {
                id: "hard-bounces",
                header: "Hard bounces",
                align: "end",
                cell: (sender) => `${formatNumber(sender.hardBounces)} (${sender.bounceRate})`,
              },
              {
                id: "sending",
                header: "Sending",
                cell: (sender) =>
                  sender.paused ? (
                    <span className="rounded-full bg-red-700 px-2 py-0.5 text-xs font-semibold text-white">
                      Paused
                    </span>
                  ) : sender.notPausedBecause ? (
                    <>
                      Active
                      <span className="block text-xs text-stone-600">
                        {sender.notPausedBecause}
                      </span>
                    </>
                  ) : (
                    "Active"
                  ),
              },
            ]}
          />
        )}
      </Panel>
      <div className="grid gap-6 lg:grid-cols-2">
        <Panel title="Recent events">
          <DataTable
            caption="Recent events"
            captionHidden
            className="mt-2"
            empty={<p className="text-stone-700">No security events yet.</p>}
            rows={security.recentEvents}
            rowKey={(event) => event.id}
            columns={[
              {
                id: "event",
                header: "Event",
                cell: (event) => EVENT_LABELS[event.eventType] ?? event.eventType,
              },
              {
                id: "severity",
                header: "Severity",
                cell: (event) => <SeverityBadge severity={event.severity} />,
              },
              { id: "ip", header: "IP address", cell: (event) => event.ipAddress ?? "Unknown" },
              {
                id: "time",
                header: "Time",
                cell: (event) => (
                  <time dateTime={event.createdAt}>{formatUtc(event.createdAt)}</time>
                ),
              },
            ]}
          />
        </Panel>
        <Panel title="Top IP addresses">
          <DataTable
            caption="Top IP addresses"
            captionHidden
            className="mt-2"
            empty={
              <p className="text-stone-700">No events with a known address in the last 24 hours.</p>
            }
            rows={security.breakdowns.topIPs}
            rowKey={(row) => row.ip}
            columns={[
              { id: "ip", header: "IP address", cell: (row) => row.ip },
              {
                id: "events",
                header: "Events",
                align: "end",
                cell: (row) => formatNumber(row.count),
              },
            ]}
          />
        </Panel>
      </div>
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return (
    <AdminErrorBoundary
      what="the security dashboard"
      failure="Failed to load security dashboard data"
    />
  );
}
