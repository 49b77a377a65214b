import { Panel, Stat, StatGrid } from "~/components/admin-dashboard/admin";
import {
  formatDroppedRequests,
  formatNumber,
  formatPercent,
  formatUptime,
  levels,
} from "~/modules/admin/admin-display";
import type { SystemHealth } from "~/modules/admin/admin-metrics.server";
import { formatBytes } from "~/utils/format";

export function HealthTab({ health }: { health: SystemHealth }) {
  const db = health.databaseStatus;
  return (
    <Panel title="System health">
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
        <Stat
          label="Dropped requests"
          value={formatNumber(Object.values(health.droppedRequests).reduce((a, b) => a + b, 0))}
          hint={`Since start: ${formatDroppedRequests(health.droppedRequests)}`}
        />
      </StatGrid>
    </Panel>
  );
}
