import { Panel, Stat, StatGrid } from "~/components/admin-dashboard/admin";
import { SeverityBadge } from "~/components/ui/badge";
import { formatCents, formatNumber, formatUptime, levels } from "~/modules/admin/admin-display";
import type { Activity, getAdminDashboard } from "~/modules/admin/admin-metrics.server";
import { formatUtc } from "~/platform/dates";

type AdminDashboard = ReturnType<typeof getAdminDashboard>;

function RecentActivity({ items }: { items: Activity[] }) {
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
          <span className="order-last col-span-2 min-w-0 wrap-break-word text-stone-900 sm:order-0 sm:col-span-1">
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

export function OverviewTab({ dashboard }: { dashboard: AdminDashboard }) {
  const { businessMetrics: b, usageStats: u, securitySummary: s } = dashboard;
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
          <Stat label="Uptime" value={formatUptime(dashboard.systemHealth.uptime)} />
          {dashboard.systemHealth.missingFiles.files > 0 ? (
            <Stat
              label="Missing files"
              value={formatNumber(dashboard.systemHealth.missingFiles.files)}
              hint="Their items stay in their folders: see the Health tab"
              level="warning"
            />
          ) : null}
        </StatGrid>
      </Panel>
      <Panel title="Recent activity">
        <RecentActivity items={dashboard.recentActivity} />
      </Panel>
    </>
  );
}
