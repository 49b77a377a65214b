import { BarChart, Panel, Stat, StatGrid } from "~/components/admin-dashboard/admin";
import { formatCents, formatNumber, formatPercent, levels } from "~/modules/admin/admin-display";
import type { getDailySeries, UsageStats } from "~/modules/admin/admin-metrics.server";
import { formatBytes } from "~/utils/format";

type DailySeries = ReturnType<typeof getDailySeries>;

export function UsageTab({ usage: u, series }: { usage: UsageStats; series: DailySeries | null }) {
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
      {series ? (
        <Panel title="Last 30 days">
          <BarChart title="Storage used" points={series.storage} format={formatBytes} />
        </Panel>
      ) : null}
    </>
  );
}
