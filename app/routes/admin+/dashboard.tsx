import { getFormProps, getInputProps, getSelectProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import type { ReactNode } from "react";
import { z } from "zod";
import {
  AdminErrorBoundary,
  AdminPage,
  adminHeaders,
  BarChart,
  Panel,
  ScrollingTable,
  SeverityBadge,
  Stat,
  StatGrid,
} from "~/components/admin";
import { CsrfInput, ErrorList, Field, SubmitButton } from "~/components/forms";
import {
  findUserIdByEmail,
  grantRole,
  listAdmins,
  requireAdmin,
  revokeRole,
  roleHistory,
} from "~/modules/accounts/roles.server";
import { hasTwoFactor } from "~/modules/accounts/two-factor.server";
import {
  formatCents,
  formatNumber,
  formatPercent,
  formatUptime,
  formatUtc,
  levels,
} from "~/modules/admin/admin-display";
import {
  getAdminDashboard,
  getDailySeries,
  getSecurityDashboard,
  getUnsubscribeReasons,
} from "~/modules/admin/admin-metrics.server";
import { GrantRoleSchema, RevokeRoleSchema } from "~/modules/admin/role-validation";
import { readProtectedForm } from "~/platform/csrf.server";
import { redirectRefreshed, redirectWithToast } from "~/platform/toast.server";
import { formatBytes } from "~/utils/format";

export const meta: MetaFunction = () => [
  { title: "Admin Dashboard · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export const headers = adminHeaders;

const TABS = [
  { id: "overview", label: "Overview" },
  { id: "health", label: "System Health" },
  { id: "business", label: "Business Metrics" },
  { id: "usage", label: "Usage & Revenue" },
  { id: "security", label: "Security" },
] as const;
type Tab = (typeof TABS)[number]["id"];

function tabOf(value: string | null): Tab {
  return TABS.find((tab) => tab.id === value)?.id ?? "overview";
}

const tabHref = (tab: Tab) =>
  tab === "overview" ? "/admin/dashboard" : `/admin/dashboard?tab=${tab}`;

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request, "the admin dashboard");
  const tab = tabOf(new URL(request.url).searchParams.get("tab"));
  const now = new Date();
  const dashboard = getAdminDashboard(now);
  const series =
    tab === "business" || tab === "usage"
      ? getDailySeries(now, {
          weeklyActiveSenders: dashboard.businessMetrics.weeklyActiveUsers,
          storageUsed: dashboard.usageStats.totalStorageUsed,
        })
      : null;
  const security = tab === "security" ? getSecurityDashboard(now) : null;
  const unsubscribeReasons = tab === "business" ? getUnsubscribeReasons(now) : null;
  const roles =
    tab === "security"
      ? {
          admins: listAdmins().map((row) => ({ ...row, grantedAt: row.grantedAt.toISOString() })),
          history: roleHistory(10).map((row) => ({
            ...row,
            grantedAt: row.grantedAt.toISOString(),
            revokedAt: row.revokedAt?.toISOString() ?? null,
          })),
        }
      : null;
  return data({
    tab,
    generatedAt: now.toISOString(),
    adminId: admin.id,
    dashboard,
    series,
    unsubscribeReasons,
    security,
    roles,
  });
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const admin = await requireAdmin(request, "the admin dashboard");
  if (formData.get("intent") === "refresh") return redirectRefreshed(request);
  const back = tabHref("security");
  if (formData.get("intent") === "revoke") {
    const submission = parseWithZod(formData, { schema: RevokeRoleSchema });
    if (submission.status !== "success") {
      return data({ result: submission.reply() }, { status: 400 });
    }
    if (submission.value.userId === admin.id) {
      return redirectWithToast(back, {
        title: "Not revoked",
        description:
          "You cannot revoke your own admin role here; another admin or npm run admin:revoke can.",
        variant: "destructive",
      });
    }
    const result = revokeRole(submission.value.userId, "admin", {
      revokedBy: admin.id,
      reason: submission.value.reason,
    });
    return redirectWithToast(back, {
      title: result === "revoked" ? "Admin role revoked" : "Nothing to revoke",
    });
  }
  const submission = parseWithZod(formData, {
    schema: GrantRoleSchema.transform((value, ctx) => {
      const userId = findUserIdByEmail(value.email);
      if (userId === null) {
        ctx.addIssue({ code: "custom", path: ["email"], message: "No account uses this e-mail" });
        return z.NEVER;
      }
      return { ...value, userId };
    }),
  });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  const { userId, role, reason, email } = submission.value;
  const result = grantRole(userId, role, { grantedBy: admin.id, reason });
  const waitsForTwoFactor = role === "admin" && !hasTwoFactor(userId);
  return redirectWithToast(back, {
    title:
      result === "granted"
        ? `Role ${role} granted`
        : `Already ${role === "admin" ? "an admin" : "a user"}`,
    description: waitsForTwoFactor
      ? `${email}: takes effect once they set up two-factor sign-in.`
      : email,
  });
}

type LoaderData = ReturnType<typeof useLoaderData<typeof loader>>;

function TabNav({ current }: { current: Tab }) {
  return (
    <nav aria-label="Dashboard sections" className="mt-3">
      <ul className="flex flex-wrap gap-1 rounded-full bg-stone-100 p-1">
        {TABS.map((tab) => (
          <li key={tab.id}>
            <Link
              to={tabHref(tab.id)}
              aria-current={tab.id === current ? "page" : undefined}
              className={`block rounded-full px-4 py-1.5 text-sm font-semibold ${
                tab.id === current ? "bg-brand-700 text-white" : "text-stone-700 hover:bg-stone-200"
              }`}
            >
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SecurityLink() {
  return (
    <Link to="/admin/security" className="btn-secondary py-1.5">
      Open the Security Dashboard
    </Link>
  );
}

function RecentActivity({ items }: { items: LoaderData["dashboard"]["recentActivity"] }) {
  if (items.length === 0) return <p className="text-stone-700">Nothing has happened yet.</p>;
  return (
    <ol className="divide-y divide-stone-200">
      {items.map((item) => (
        // On a phone the event gets a line of its own under its badge and time, so
        // its words are not squeezed into a narrow column beside them.
        <li
          key={`${item.timestamp}-${item.description}`}
          className="grid grid-cols-[auto_1fr] items-center gap-x-3 gap-y-1 py-2 sm:grid-cols-[auto_1fr_auto]"
        >
          <SeverityBadge severity={item.severity} />
          <span className="order-last col-span-2 min-w-0 break-words text-stone-900 sm:order-none sm:col-span-1">
            {item.description}
          </span>
          <time
            dateTime={item.timestamp}
            className="justify-self-end text-sm text-stone-600 sm:justify-self-auto"
          >
            {formatUtc(item.timestamp)}
          </time>
        </li>
      ))}
    </ol>
  );
}

function HealthStats({ health }: { health: LoaderData["dashboard"]["systemHealth"] }) {
  const db = health.databaseStatus;
  return (
    <StatGrid>
      <Stat label="Uptime" value={formatUptime(health.uptime)} />
      <Stat
        label="Memory"
        value={formatPercent(health.memoryUsage.percentage)}
        hint={`${formatBytes(health.memoryUsage.used)} of ${formatBytes(health.memoryUsage.total)}`}
        level={levels.memory(health.memoryUsage.percentage)}
      />
      <Stat
        label="Database"
        value={db.status === "connected" ? "Connected" : "Error"}
        hint={
          db.status === "connected"
            ? `${db.activeConnections} of ${db.totalConnections} connection active`
            : db.error
        }
        level={db.status === "connected" ? "normal" : "critical"}
      />
      <Stat
        label="Query time"
        value={`${db.queryPerformance.toFixed(2)} ms`}
        level={levels.queryMs(db.queryPerformance)}
      />
    </StatGrid>
  );
}

function Overview({ loaded }: { loaded: LoaderData }) {
  const { businessMetrics: b, usageStats: u, securitySummary: s } = loaded.dashboard;
  return (
    <>
      <Panel title="At a glance">
        <StatGrid>
          <Stat label="Weekly active senders" value={formatNumber(b.weeklyActiveUsers)} />
          <Stat label="Total users" value={formatNumber(b.totalUsers)} />
          <Stat label="E-mails sent today" value={formatNumber(b.emailsSentToday)} />
          <Stat label="Monthly revenue" value={formatCents(u.subscriptionRevenue)} />
          <Stat
            label="Critical alerts"
            value={formatNumber(s.criticalAlerts)}
            hint="Last 24 hours"
            level={levels.criticalAlerts(s.criticalAlerts)}
          />
          <Stat label="Uptime" value={formatUptime(loaded.dashboard.systemHealth.uptime)} />
        </StatGrid>
      </Panel>
      <Panel title="Recent activity">
        <RecentActivity items={loaded.dashboard.recentActivity} />
      </Panel>
    </>
  );
}

const UNSUBSCRIBE_REASON_LABELS = {
  unknown: "Prefer not to say",
  not_interested: "Not interested any more",
  too_frequent: "E-mails come too often",
  other: "Another reason",
} as const;

function Business({ loaded }: { loaded: LoaderData }) {
  const b = loaded.dashboard.businessMetrics;
  const rows: [string, string, ReactNode?][] = [
    [
      "Weekly active senders",
      formatNumber(b.weeklyActiveUsers),
      "Added an item or had a folder sent, last 7 days",
    ],
    ["Total users", formatNumber(b.totalUsers)],
    ["Total content", formatNumber(b.totalContent)],
    ["E-mails sent today", formatNumber(b.emailsSentToday)],
    ["E-mails sent this week", formatNumber(b.emailsSentThisWeek), "Since Monday, UTC"],
    ["E-mails sent, last 30 days", formatNumber(b.emailsSentLast30Days)],
    ["Average items per e-mail", formatNumber(b.averageItemsPerEmail, 2)],
    ["Average links per e-mail", formatNumber(b.averageLinksPerEmail, 2)],
    ["Average photos per e-mail", formatNumber(b.averagePhotosPerEmail, 2)],
    ["Average files per e-mail", formatNumber(b.averageFilesPerEmail, 2)],
    ["Average e-mail size", formatBytes(b.averageEmailSizeBytes)],
    ["Average recipients per folder", formatNumber(b.averageRecipientsPerFolder, 2)],
    ["Average folders per user", formatNumber(b.averageFoldersPerUser, 2)],
    ["Average folders per weekly active sender", formatNumber(b.averageFoldersPerWeeklyCurator, 2)],
    [
      "Average e-mail size per weekly active sender",
      formatBytes(b.averageEmailSizeBytesPerWeeklyCurator),
      "E-mails of the last 7 days",
    ],
  ];
  return (
    <>
      <Panel title="Business metrics">
        <StatGrid>
          <Stat
            label="Recipient retention"
            value={formatPercent(b.retentionRate)}
            hint="Recipients still receiving"
            level={levels.retention(b.retentionRate)}
          />
          {rows.map(([label, value, hint]) => (
            <Stat key={label} label={label} value={value} hint={hint} />
          ))}
        </StatGrid>
      </Panel>
      {loaded.unsubscribeReasons ? (
        <Panel title="Unsubscribe reasons (last 30 days)">
          {/* Counts only: no sender, folder or address is ever shown with a reason. */}
          <StatGrid>
            {loaded.unsubscribeReasons.map(({ reason, count }) => (
              <Stat
                key={reason}
                label={UNSUBSCRIBE_REASON_LABELS[reason]}
                value={formatNumber(count)}
              />
            ))}
          </StatGrid>
        </Panel>
      ) : null}
      {loaded.series ? (
        <Panel title="Last 30 days">
          <div className="grid gap-4 lg:grid-cols-2">
            <BarChart title="E-mails sent per day" points={loaded.series.emailsSent} />
            <BarChart title="Weekly active senders" points={loaded.series.activeSenders} />
          </div>
        </Panel>
      ) : null}
    </>
  );
}

function Usage({ loaded }: { loaded: LoaderData }) {
  const u = loaded.dashboard.usageStats;
  return (
    <>
      <Panel title="Usage & revenue">
        <StatGrid>
          <Stat
            label="Storage used"
            value={formatBytes(u.totalStorageUsed)}
            hint={`${formatPercent(u.storagePercentage)} of ${formatBytes(u.totalStorageLimit)} (free accounts' limits)`}
            level={levels.storage(u.storagePercentage)}
          />
          <Stat label="Average storage per user" value={formatBytes(u.avgStoragePerUser)} />
          <Stat label="Premium users" value={formatNumber(u.premiumUsers)} />
          <Stat label="Free users" value={formatNumber(u.freeUsers)} />
          <Stat
            label="Subscription revenue"
            value={formatCents(u.subscriptionRevenue)}
            hint="Per month"
          />
        </StatGrid>
      </Panel>
      {loaded.series ? (
        <Panel title="Last 30 days">
          <BarChart title="Storage used" points={loaded.series.storage} format={formatBytes} />
        </Panel>
      ) : null}
    </>
  );
}

function RolesPanel({ loaded }: { loaded: LoaderData }) {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "grant-role",
    lastResult: actionData?.result,
    constraint: getZodConstraint(GrantRoleSchema),
    shouldValidate: "onBlur",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: GrantRoleSchema }),
  });
  const roles = loaded.roles;
  if (!roles) return null;
  const roleProps = getSelectProps(fields.role);
  return (
    <Panel title="Admin roles">
      <h3 className="font-semibold text-stone-900">Current admins</h3>
      <ul className="mt-2 divide-y divide-stone-200">
        {roles.admins.map((admin) => (
          <li key={admin.userId} className="flex flex-wrap items-center gap-3 py-2">
            <span className="min-w-0 flex-1 text-stone-900">
              {admin.email}{" "}
              <span className="text-sm text-stone-600">since {formatUtc(admin.grantedAt)}</span>
            </span>
            {admin.userId === loaded.adminId ? (
              <span className="text-sm text-stone-600">You</span>
            ) : (
              <Form method="post" className="flex items-center gap-2">
                <CsrfInput />
                <input type="hidden" name="intent" value="revoke" />
                <input type="hidden" name="userId" value={admin.userId} />
                <label className="sr-only" htmlFor={`revoke-reason-${admin.userId}`}>
                  Reason for revoking {admin.email}
                </label>
                <input
                  id={`revoke-reason-${admin.userId}`}
                  name="reason"
                  placeholder="Reason (optional)"
                  maxLength={200}
                  className="rounded-lg border border-stone-300 px-2 py-1 text-sm"
                />
                <button type="submit" className="btn-secondary py-1">
                  Revoke admin <span className="sr-only">from {admin.email}</span>
                </button>
              </Form>
            )}
          </li>
        ))}
      </ul>

      <h3 className="mt-6 font-semibold text-stone-900">Grant a role</h3>
      <Form method="post" {...getFormProps(form)} className="mt-2 grid gap-3 sm:grid-cols-3">
        <CsrfInput />
        <input type="hidden" name="intent" value="grant" />
        <Field
          label="Email"
          inputProps={{ ...getInputProps(fields.email, { type: "email" }), autoComplete: "off" }}
          errors={fields.email.errors}
        />
        <div>
          <label htmlFor={roleProps.id} className="block text-sm font-medium text-stone-800">
            Role
          </label>
          <select
            {...roleProps}
            key={roleProps.key}
            defaultValue="admin"
            className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2"
          >
            <option value="admin">Admin</option>
            <option value="user">User</option>
          </select>
          <ErrorList errors={fields.role.errors} />
        </div>
        <Field
          label="Reason (optional)"
          inputProps={{ ...getInputProps(fields.reason, { type: "text" }), maxLength: 200 }}
          errors={fields.reason.errors}
        />
        <div className="sm:col-span-3">
          <SubmitButton pendingText="Granting..." className="btn-primary">
            Grant role
          </SubmitButton>
        </div>
      </Form>

      <h3 className="mt-6 font-semibold text-stone-900">History</h3>
      <ScrollingTable label="Role history table">
        <table className="w-full text-left text-sm">
          <thead>
            <tr className="text-stone-700">
              <th scope="col" className="py-1 pr-3">
                User
              </th>
              <th scope="col" className="py-1 pr-3">
                Role
              </th>
              <th scope="col" className="py-1 pr-3">
                Granted
              </th>
              <th scope="col" className="py-1">
                Revoked
              </th>
            </tr>
          </thead>
          <tbody>
            {roles.history.map((row) => (
              <tr key={row.id} className="border-t border-stone-200 align-top">
                <td className="py-1 pr-3">{row.email}</td>
                <td className="py-1 pr-3">{row.role}</td>
                <td className="py-1 pr-3">
                  {formatUtc(row.grantedAt)} by {row.grantedBy ?? "command line"}
                  {row.grantReason ? `: ${row.grantReason}` : ""}
                </td>
                <td className="py-1">
                  {row.revokedAt
                    ? `${formatUtc(row.revokedAt)} by ${row.revokedBy ?? "command line"}${row.revokeReason ? `: ${row.revokeReason}` : ""}`
                    : "Active"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollingTable>
    </Panel>
  );
}

function Security({ loaded }: { loaded: LoaderData }) {
  const security = loaded.security;
  return (
    <>
      <Panel title="Security summary" actions={<SecurityLink />}>
        {security ? (
          <StatGrid>
            <Stat
              label="Critical alerts"
              value={formatNumber(security.metrics.criticalAlerts)}
              level={levels.criticalAlerts(security.metrics.criticalAlerts)}
            />
            <Stat
              label="Failed logins"
              value={formatNumber(security.metrics.failedLogins)}
              level={levels.failedLogins(security.metrics.failedLogins)}
            />
            <Stat
              label="Unauthorized access"
              value={formatNumber(security.metrics.unauthorizedAccess)}
              level={levels.unauthorizedAccess(security.metrics.unauthorizedAccess)}
            />
            <Stat
              label="Security events"
              value={formatNumber(security.metrics.totalSecurityEvents)}
            />
          </StatGrid>
        ) : null}
        <p className="mt-3 text-sm text-stone-600">Counts cover the last 24 hours.</p>
      </Panel>
      <RolesPanel loaded={loaded} />
    </>
  );
}

export default function AdminDashboard() {
  const loaded = useLoaderData<typeof loader>();
  const current = TABS.find((tab) => tab.id === loaded.tab) ?? TABS[0];
  return (
    <AdminPage
      title="Admin Dashboard"
      generatedAt={loaded.generatedAt}
      nav={<TabNav current={loaded.tab} />}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="sr-only">{current.label}</h2>
        {loaded.tab !== "security" ? <SecurityLink /> : null}
      </div>
      {loaded.tab === "overview" ? <Overview loaded={loaded} /> : null}
      {loaded.tab === "health" ? (
        <Panel title="System health">
          <HealthStats health={loaded.dashboard.systemHealth} />
        </Panel>
      ) : null}
      {loaded.tab === "business" ? <Business loaded={loaded} /> : null}
      {loaded.tab === "usage" ? <Usage loaded={loaded} /> : null}
      {loaded.tab === "security" ? <Security loaded={loaded} /> : null}
    </AdminPage>
  );
}

export function ErrorBoundary() {
  const [searchParams] = useSearchParams();
  const failure =
    tabOf(searchParams.get("tab")) === "security"
      ? "Failed to load security data"
      : "Failed to load admin dashboard data";
  return <AdminErrorBoundary what="the admin dashboard" failure={failure} />;
}
