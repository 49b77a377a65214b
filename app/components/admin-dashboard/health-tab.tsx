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

/** The reserve kept for the database (docs/decisions/0245-the-disk-keeps-room-for-the-database.md). */
function DiskReserveStat({ room }: { room: SystemHealth["diskReserve"] }) {
  const reserve = formatBytes(room.reserveBytes);
  if (room.state === "unmeasured" || room.freeBytes === null) {
    return (
      <Stat
        label="Disk reserve"
        value="Not measured"
        hint={`The data volume reports no size; ${reserve} is to be kept for the database`}
      />
    );
  }
  const free = `${formatBytes(room.freeBytes)} free on the data volume, ${reserve} kept for the database`;
  const shown = {
    kept: { value: "Kept", hint: `${free}, which uploads may not use`, level: "normal" },
    "in use": {
      value: "In use",
      hint: `${free}: uploads are refused until space is freed`,
      level: "warning",
    },
    gone: {
      value: "Nearly gone",
      hint: `${free}: uploads are refused and /healthz fails until space is freed`,
      level: "critical",
    },
  } as const;
  const { value, hint, level } = shown[room.state];
  return <Stat label="Disk reserve" value={value} hint={hint} level={level} />;
}

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
        <DiskReserveStat room={health.diskReserve} />
        <Stat
          label="Missing files"
          value={formatNumber(health.missingFiles.files)}
          hint={
            health.missingFiles.items === 0
              ? "Every file the last sends looked for was there"
              : `${formatNumber(health.missingFiles.items)} unsent ${health.missingFiles.items === 1 ? "item stays" : "items stay"} in ${health.missingFiles.items === 1 ? "its folder" : "their folders"} for it (docs/deploy.md, "A file is missing")`
          }
          level={health.missingFiles.files > 0 ? "warning" : "normal"}
        />
      </StatGrid>
    </Panel>
  );
}
