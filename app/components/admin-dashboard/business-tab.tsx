import type { ReactNode } from "react";
import { BarChart, Panel, Stat, StatGrid } from "~/components/admin-dashboard/admin";
import { formatNumber, formatPercent, levels } from "~/modules/admin/admin-display";
import type {
  BusinessMetrics,
  getDailySeries,
  UnsubscribeReasonCount,
} from "~/modules/admin/admin-metrics.server";
import { formatBytes } from "~/utils/format";

type DailySeries = ReturnType<typeof getDailySeries>;

const UNSUBSCRIBE_REASON_LABELS = {
  unknown: "Prefer not to say",
  not_interested: "Not interested any more",
  too_frequent: "E-mails come too often",
  other: "Another reason",
} as const;

export function BusinessTab({
  metrics: b,
  unsubscribeReasons,
  series,
}: {
  metrics: BusinessMetrics;
  unsubscribeReasons: UnsubscribeReasonCount[] | null;
  series: DailySeries | null;
}) {
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
      {unsubscribeReasons ? (
        <Panel title="Unsubscribe reasons (last 30 days)">
          {/* Counts only: no sender, folder or address is ever shown with a reason. */}
          <StatGrid>
            {unsubscribeReasons.map(({ reason, count }) => (
              <Stat
                key={reason}
                label={UNSUBSCRIBE_REASON_LABELS[reason]}
                value={formatNumber(count)}
              />
            ))}
          </StatGrid>
        </Panel>
      ) : null}
      {series ? (
        <Panel title="Last 30 days">
          <div className="grid gap-4 lg:grid-cols-2">
            <BarChart title="E-mails sent per day" points={series.emailsSent} />
            <BarChart title="Weekly active senders" points={series.activeSenders} />
          </div>
        </Panel>
      ) : null}
    </>
  );
}
