import os from "node:os";
import { sql } from "drizzle-orm";
import { analyticsSnapshots } from "#db/schema";
import { LIMITS, PREMIUM_MONTHLY_PRICE_CENTS } from "~/modules/plans/limits";
import {
  UNSUBSCRIBE_REASONS,
  type UnsubscribeReason,
} from "~/modules/recipients/recipient-states.server";
import { db } from "~/platform/db.server";
import { type DiskRoom, diskRoom } from "~/platform/disk-reserve.server";
import {
  type DroppedRequestCounts,
  droppedRequestCounts,
} from "~/platform/dropped-requests.server";
import { EVENT_LABELS } from "./admin-display";
import { checkDatabase } from "./health.server";

/**
 * Every figure of the admin and security dashboards (docs/product-rules.md,
 * "Admin dashboards"), computed with
 * SQL from the stored rows at a given `now`. The definitions are written down
 * in docs/decisions/0031-admin-dashboard-figures.md.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const round = (value: number, digits = 2) => {
  const factor = 10 ** digits;
  return Math.round((value + Number.EPSILON) * factor) / factor;
};
const ratio = (part: number, whole: number, digits = 2) =>
  whole > 0 ? round(part / whole, digits) : 0;

export function startOfUtcDay(now: Date) {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
}

/** Monday 00:00 UTC of the week holding `now`. */
export function startOfUtcWeek(now: Date) {
  const daysSinceMonday = (now.getUTCDay() + 6) % 7;
  return startOfUtcDay(now) - daysSinceMonday * DAY;
}

export function utcDate(ms: number) {
  return new Date(ms).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------- system health

export type SystemHealth = {
  uptime: number;
  memoryUsage: { percentage: number; used: number; total: number };
  databaseStatus: {
    status: "connected" | "error";
    activeConnections: number;
    totalConnections: number;
    queryPerformance: number;
    error?: string;
  };
  /** Requests dropped or refused since this process started, by why (decision 0239). */
  droppedRequests: DroppedRequestCounts;
  /** The data volume's free space against the reserve kept for the database (decision 0245). */
  diskReserve: DiskRoom;
  /**
   * Stored files the last send of their folder found gone, and the unsent items that stayed
   * behind for it (docs/decisions/0242-a-missing-file-stays-behind-with-its-item.md).
   */
  missingFiles: { files: number; items: number };
};

function missingFileCounts() {
  return (
    db.get<{ files: number; items: number }>(sql`
      select coalesce(sum(json_array_length(missing_files)), 0) as files, count(*) as items
        from content_items where sent_at is null and missing_files <> '[]'`) ?? {
      files: 0,
      items: 0,
    }
  );
}

export function getSystemHealth(): SystemHealth {
  const used = process.memoryUsage().rss;
  const total = os.totalmem();
  const check = checkDatabase();
  // One process holds one better-sqlite3 connection, open for its whole life.
  const open = db.$client.open ? 1 : 0;
  return {
    uptime: Math.floor(process.uptime()),
    memoryUsage: { percentage: round((used / total) * 100, 1), used, total },
    databaseStatus: check.ok
      ? {
          status: "connected",
          activeConnections: open,
          totalConnections: 1,
          queryPerformance: round(check.queryMs, 2),
        }
      : {
          status: "error",
          activeConnections: 0,
          totalConnections: 1,
          queryPerformance: 0,
          error: check.error,
        },
    droppedRequests: droppedRequestCounts(),
    diskReserve: diskRoom(),
    missingFiles: missingFileCounts(),
  };
}

// ---------------------------------------------------------------- business metrics

export type BusinessMetrics = {
  weeklyActiveUsers: number;
  totalUsers: number;
  totalContent: number;
  totalRecipients: number;
  totalEmailsSent: number;
  emailsSentToday: number;
  emailsSentThisWeek: number;
  emailsSentLast30Days: number;
  averageItemsPerEmail: number;
  retentionRate: number;
  averageRecipientsPerFolder: number;
  averageFoldersPerUser: number;
  averageEmailSizeBytes: number;
  averageFoldersPerWeeklyCurator: number;
  averageEmailSizeBytesPerWeeklyCurator: number;
  averageLinksPerEmail: number;
  averagePhotosPerEmail: number;
  averageFilesPerEmail: number;
};

/**
 * The senders active in (since, until]: they added an item to one of their
 * folders or one of their folders was sent.
 */
const activeSenders = (since: number, until: number) => sql`
  select users.id from users
   where exists (select 1 from content_items join folders on folders.id = content_items.folder_id
                  where folders.user_id = users.id
                    and content_items.created_at > ${since} and content_items.created_at <= ${until})
      or exists (select 1 from email_deliveries join folders on folders.id = email_deliveries.folder_id
                  where folders.user_id = users.id
                    and email_deliveries.sent_at > ${since} and email_deliveries.sent_at <= ${until})`;

/** Each (folder, listed recipient) pair, with whether that recipient still gets the folder. */
const recipientPairs = sql`
  select folders.id as folder_id,
         lower(json_extract(je.value, '$.email')) as email,
         (not exists (select 1 from folder_recipient_states s
                       where s.folder_id = folders.id
                         and s.email = lower(json_extract(je.value, '$.email'))
                         and s.status in ('unsubscribed', 'bounced'))
          and not exists (select 1 from email_unsubscribes u
                           where u.email = lower(json_extract(je.value, '$.email')))) as retained
    from folders, json_each(folders.recipients) as je`;

export function getBusinessMetrics(now: Date): BusinessMetrics {
  const at = now.getTime();
  const weekAgo = at - 7 * DAY;
  const monthAgo = at - 30 * DAY;
  const row = db.get<{
    weeklyActiveUsers: number;
    activeFolders: number;
    totalUsers: number;
    totalFolders: number;
    totalContent: number;
    recipientPairs: number;
    retainedPairs: number;
    totalRecipients: number;
    totalEmailsSent: number;
    today: number;
    thisWeek: number;
    last30: number;
    avgItems: number | null;
    avgSize: number | null;
    avgLinks: number | null;
    avgPhotos: number | null;
    avgFiles: number | null;
    weeklyAvgSize: number | null;
  }>(sql`
    with active as (${activeSenders(weekAgo, at)}),
         pairs as (${recipientPairs}),
         recent as (select * from email_deliveries where sent_at > ${monthAgo} and sent_at <= ${at})
    select
      (select count(*) from active) as weeklyActiveUsers,
      (select count(*) from folders where user_id in (select id from active)) as activeFolders,
      (select count(*) from users) as totalUsers,
      (select count(*) from folders) as totalFolders,
      (select count(*) from content_items) as totalContent,
      (select count(*) from pairs) as recipientPairs,
      (select count(*) from pairs where retained) as retainedPairs,
      (select count(distinct email) from pairs) as totalRecipients,
      (select count(*) from email_deliveries where sent_at <= ${at}) as totalEmailsSent,
      (select count(*) from email_deliveries
        where sent_at >= ${startOfUtcDay(now)} and sent_at <= ${at}) as today,
      (select count(*) from email_deliveries
        where sent_at >= ${startOfUtcWeek(now)} and sent_at <= ${at}) as thisWeek,
      (select count(*) from recent) as last30,
      (select avg(item_count) from recent) as avgItems,
      (select avg(email_size_bytes) from recent) as avgSize,
      (select avg(coalesce(json_extract(content_breakdown, '$.links'), 0)) from recent) as avgLinks,
      (select avg(coalesce(json_extract(content_breakdown, '$.photos'), 0)) from recent) as avgPhotos,
      (select avg(coalesce(json_extract(content_breakdown, '$.files'), 0)) from recent) as avgFiles,
      (select avg(email_size_bytes) from recent where sent_at > ${weekAgo}) as weeklyAvgSize`);
  if (!row) throw new Error("Business metrics query returned nothing");
  return {
    weeklyActiveUsers: row.weeklyActiveUsers,
    totalUsers: row.totalUsers,
    totalContent: row.totalContent,
    totalRecipients: row.totalRecipients,
    totalEmailsSent: row.totalEmailsSent,
    emailsSentToday: row.today,
    emailsSentThisWeek: row.thisWeek,
    emailsSentLast30Days: row.last30,
    averageItemsPerEmail: round(row.avgItems ?? 0),
    retentionRate:
      row.recipientPairs > 0 ? round((row.retainedPairs / row.recipientPairs) * 100, 1) : 0,
    averageRecipientsPerFolder: ratio(row.recipientPairs, row.totalFolders),
    averageFoldersPerUser: ratio(row.totalFolders, row.totalUsers),
    averageEmailSizeBytes: Math.round(row.avgSize ?? 0),
    averageFoldersPerWeeklyCurator: ratio(row.activeFolders, row.weeklyActiveUsers),
    averageEmailSizeBytesPerWeeklyCurator: Math.round(row.weeklyAvgSize ?? 0),
    averageLinksPerEmail: round(row.avgLinks ?? 0),
    averagePhotosPerEmail: round(row.avgPhotos ?? 0),
    averageFilesPerEmail: round(row.avgFiles ?? 0),
  };
}

export type UnsubscribeReasonCount = { reason: UnsubscribeReason; count: number };

/**
 * Why recipients left in the last 30 days, as counts only: the one place a
 * reason leaves the database (docs/decisions/0045-recipients-privacy.md).
 * One count per decision: the row of the folder whose link was used carries
 * the reason; the rows an opt-out from everything adds to other folders carry
 * none. Every reason is listed, zeros included, in the unsubscribe page's order.
 */
export function getUnsubscribeReasons(now: Date): UnsubscribeReasonCount[] {
  const at = now.getTime();
  const rows = db.all<{ reason: string; count: number }>(sql`
    select unsubscribe_reason as reason, count(*) as count
      from folder_recipient_states
     where status = 'unsubscribed' and unsubscribe_reason is not null
       and unsubscribed_at > ${at - 30 * DAY} and unsubscribed_at <= ${at}
     group by unsubscribe_reason`);
  const counts = new Map(rows.map((row) => [row.reason, row.count]));
  return UNSUBSCRIBE_REASONS.map((reason) => ({ reason, count: counts.get(reason) ?? 0 }));
}

// ---------------------------------------------------------------- usage and revenue

export type UsageStats = {
  totalStorageUsed: number;
  totalStorageLimit: number;
  storagePercentage: number;
  premiumUsers: number;
  freeUsers: number;
  /** Monthly, in cents: premium users × PREMIUM_MONTHLY_PRICE_CENTS. */
  subscriptionRevenue: number;
  avgStoragePerUser: number;
};

const isPremiumSql = sql.raw(
  "(users.subscription_tier = 'premium' and users.subscription_status = 'active')",
);

export function getUsageStats(): UsageStats {
  const { bonusStorageBytesEach, maxBonusStorageBytes } = LIMITS.referral;
  const row = db.get<{
    used: number;
    limit: number;
    premium: number;
    total: number;
  }>(sql`
    select
      (select coalesce(sum((select coalesce(sum(je.value), 0) from json_each(content_items.file_sizes) as je)), 0)
         from content_items where content_items.sent_at is null) as used,
      (select coalesce(sum(${LIMITS.free.maxStorageBytes} + min(${maxBonusStorageBytes},
                 ${bonusStorageBytesEach} * (select count(*) from referrals
                   where referrals.referrer_user_id = users.id and referrals.status = 'completed'))), 0)
         from users where not ${isPremiumSql}) as "limit",
      (select count(*) from users where ${isPremiumSql}) as premium,
      (select count(*) from users) as total`);
  if (!row) throw new Error("Usage query returned nothing");
  return {
    totalStorageUsed: row.used,
    totalStorageLimit: row.limit,
    storagePercentage: row.limit > 0 ? round((row.used / row.limit) * 100, 1) : 0,
    premiumUsers: row.premium,
    freeUsers: row.total - row.premium,
    subscriptionRevenue: row.premium * PREMIUM_MONTHLY_PRICE_CENTS,
    avgStoragePerUser: row.total > 0 ? Math.round(row.used / row.total) : 0,
  };
}

// ---------------------------------------------------------------- alerts and activity

/** High and critical security events, and high and critical upload threats, of the last 24 hours. */
export function countCriticalAlerts(now: Date) {
  const at = now.getTime();
  const since = at - DAY;
  const row = db.get<{ count: number }>(sql`
    select
      (select count(*) from security_events
        where severity in ('high', 'critical') and created_at > ${since} and created_at <= ${at})
      + (select count(*) from security_rejections
        where threat_level in ('high', 'critical') and timestamp > ${since} and timestamp <= ${at})
      as count`);
  return row?.count ?? 0;
}

export type Severity = "low" | "medium" | "high" | "critical";
export type Activity = { description: string; severity: Severity; timestamp: string };

/**
 * The 8 newest things that happened: sign-ups, sends, role changes and security events. Things
 * of the same instant come in the order of an account's life, the later step first (a role
 * after its sign-up, an admin's look after both), so every load lists them alike.
 */
export function getRecentActivity(now: Date, limit = 8): Activity[] {
  const at = now.getTime();
  const rows = db.all<{
    kind: string;
    subject: string | null;
    detail: string | number | null;
    severity: Severity;
    ts: number;
  }>(sql`
    select * from (
      select 'signup' as kind, email as subject, null as detail, 'low' as severity, created_at as ts,
             0 as step
        from users where created_at <= ${at}
      union all
      select 'send', folders.name, (select count(*) from send_ledger_recipients r
                                     where r.ledger_id = send_ledger.id and r.kind = 'recipient'
                                       and r.status = 'sent'),
             'low', send_ledger.completed_at, 3
        from send_ledger join folders on folders.id = send_ledger.folder_id
       where send_ledger.status = 'sent' and send_ledger.completed_at <= ${at}
      union all
      select 'grant', users.email, user_roles.role, 'medium', user_roles.granted_at, 1
        from user_roles join users on users.id = user_roles.user_id
       where user_roles.granted_at <= ${at}
      union all
      select 'revoke', users.email, user_roles.role, 'medium', user_roles.revoked_at, 2
        from user_roles join users on users.id = user_roles.user_id
       where user_roles.revoked_at is not null and user_roles.revoked_at <= ${at}
      union all
      select 'event:' || event_type, ip_address, endpoint, severity, created_at, 4
        from security_events where created_at <= ${at}
    ) order by ts desc, step desc, subject limit ${limit}`);
  return rows.map((row) => ({
    description: describeActivity(row.kind, row.subject, row.detail),
    severity: row.severity,
    timestamp: new Date(row.ts).toISOString(),
  }));
}

function describeActivity(kind: string, subject: string | null, detail: string | number | null) {
  switch (kind) {
    case "signup":
      return `New account: ${subject}`;
    case "send":
      return `Folder “${subject}” sent to ${Number(detail)} recipient${Number(detail) === 1 ? "" : "s"}`;
    case "grant":
      return `Role ${detail} granted to ${subject}`;
    case "revoke":
      return `Role ${detail} revoked from ${subject}`;
    default: {
      const label = EVENT_LABELS[kind.slice("event:".length)] ?? kind;
      const where = [detail ? `on ${detail}` : null, subject ? `from ${subject}` : null]
        .filter(Boolean)
        .join(" ");
      return where ? `${label} ${where}` : label;
    }
  }
}

// ---------------------------------------------------------------- the admin dashboard response

export function getAdminDashboard(now: Date) {
  return {
    systemHealth: getSystemHealth(),
    businessMetrics: getBusinessMetrics(now),
    usageStats: getUsageStats(),
    securitySummary: { criticalAlerts: countCriticalAlerts(now) },
    recentActivity: getRecentActivity(now),
  };
}

// ---------------------------------------------------------------- security dashboard

export type Direction = "up" | "down" | "stable";
export type Trend = { current: number; previous: number; direction: Direction };

export function trendOf(current: number, previous: number): Trend {
  const direction = current > previous ? "up" : current < previous ? "down" : "stable";
  return { current, previous, direction };
}

/** The period the security figures cover; trends compare it with the one before. */
export const SECURITY_PERIOD_MS = DAY;

export type SecurityEventRow = {
  id: number;
  severity: Severity;
  eventType: string;
  ipAddress: string | null;
  createdAt: string;
};

export function getSecurityDashboard(now: Date) {
  const at = now.getTime();
  const since = at - SECURITY_PERIOD_MS;
  const before = since - SECURITY_PERIOD_MS;
  const counts = db.get<{
    failedLogins: number;
    rateLimitViolations: number;
    unauthorizedAccess: number;
    totalSecurityEvents: number;
    previousEvents: number;
    fileThreats: number;
    previousFileThreats: number;
    twoFactorEnrolments: number;
    twoFactorFailures: number;
    recoveryCodesUsed: number;
    inboundMailRefused: number;
  }>(sql`
    select
      coalesce(sum(event_type = 'failed_login' and created_at > ${since}), 0) as failedLogins,
      coalesce(sum(event_type = 'rate_limit_exceeded' and created_at > ${since}), 0) as rateLimitViolations,
      coalesce(sum(event_type = 'unauthorized_access' and created_at > ${since}), 0) as unauthorizedAccess,
      coalesce(sum(created_at > ${since}), 0) as totalSecurityEvents,
      coalesce(sum(event_type = 'two_factor_enrolled' and created_at > ${since}), 0) as twoFactorEnrolments,
      coalesce(sum(event_type = 'two_factor_failed' and created_at > ${since}), 0) as twoFactorFailures,
      coalesce(sum(event_type = 'recovery_code_used' and created_at > ${since}), 0) as recoveryCodesUsed,
      coalesce(sum(event_type = 'inbound_mail_refused' and created_at > ${since}), 0) as inboundMailRefused,
      coalesce(sum(created_at <= ${since}), 0) as previousEvents,
      (select count(*) from security_rejections
        where timestamp > ${since} and timestamp <= ${at}) as fileThreats,
      (select count(*) from security_rejections
        where timestamp > ${before} and timestamp <= ${since}) as previousFileThreats
    from security_events where created_at > ${before} and created_at <= ${at}`);
  if (!counts) throw new Error("Security query returned nothing");
  const recentEvents = db
    .all<{
      id: number;
      severity: Severity;
      eventType: string;
      ipAddress: string | null;
      createdAt: number;
    }>(sql`
      select id, severity, event_type as eventType, ip_address as ipAddress, created_at as createdAt
        from security_events where created_at <= ${at}
       order by created_at desc, id desc limit 5`)
    .map((row) => ({ ...row, createdAt: new Date(row.createdAt).toISOString() }));
  const topIPs = db.all<{ ip: string; count: number }>(sql`
    select ip_address as ip, count(*) as count from security_events
     where ip_address is not null and created_at > ${since} and created_at <= ${at}
     group by ip_address order by count desc, ip asc limit 5`);
  return {
    metrics: {
      criticalAlerts: countCriticalAlerts(now),
      failedLogins: counts.failedLogins,
      totalFileThreats: counts.fileThreats,
      rateLimitViolations: counts.rateLimitViolations,
      unauthorizedAccess: counts.unauthorizedAccess,
      totalSecurityEvents: counts.totalSecurityEvents,
      twoFactorEnrolments: counts.twoFactorEnrolments,
      twoFactorFailures: counts.twoFactorFailures,
      recoveryCodesUsed: counts.recoveryCodesUsed,
      inboundMailRefused: counts.inboundMailRefused,
    },
    trends: {
      securityEvents: trendOf(counts.totalSecurityEvents, counts.previousEvents),
      fileThreats: trendOf(counts.fileThreats, counts.previousFileThreats),
    },
    recentEvents: recentEvents satisfies SecurityEventRow[],
    breakdowns: { topIPs },
  };
}

// ---------------------------------------------------------------- daily snapshots and charts

/** Writes (or rewrites) the snapshot of `now`'s UTC day. The daily job calls it. */
export function takeAnalyticsSnapshot(now: Date) {
  const metrics = getBusinessMetrics(now);
  const usage = getUsageStats();
  const values = {
    snapshotDate: utcDate(now.getTime()),
    weeklyActiveCurators: metrics.weeklyActiveUsers,
    averageItemsPerEmail: metrics.averageItemsPerEmail,
    recipientRetentionRate: metrics.retentionRate,
    totalCurators: metrics.totalUsers,
    totalRecipients: metrics.totalRecipients,
    totalEmailsSent: metrics.totalEmailsSent,
    emailsSentLast30Days: metrics.emailsSentLast30Days,
    averageRecipientsPerFolder: metrics.averageRecipientsPerFolder,
    averageFoldersPerUser: metrics.averageFoldersPerUser,
    averageEmailSizeBytes: metrics.averageEmailSizeBytes,
    averageFoldersPerWeeklyCurator: metrics.averageFoldersPerWeeklyCurator,
    averageEmailSizeBytesPerWeeklyCurator: metrics.averageEmailSizeBytesPerWeeklyCurator,
    averageLinksPerEmail: metrics.averageLinksPerEmail,
    averagePhotosPerEmail: metrics.averagePhotosPerEmail,
    averageFilesPerEmail: metrics.averageFilesPerEmail,
    totalStorageBytes: usage.totalStorageUsed,
  };
  const { snapshotDate: _date, ...update } = values;
  db.insert(analyticsSnapshots)
    .values(values)
    .onConflictDoUpdate({ target: analyticsSnapshots.snapshotDate, set: update })
    .run();
  return values;
}

export type ChartPoint = { date: string; value: number | null };

/** Today's live figures, which the charts end on so that they agree with the cards. */
export type TodaysFigures = { weeklyActiveSenders: number; storageUsed: number };

/**
 * The last `days` UTC days up to `now`'s: e-mails sent each day (counted from
 * email_deliveries), and weekly active senders and storage: the snapshots for
 * past days (null on a day without one), the live figures for today.
 */
export function getDailySeries(now: Date, live: TodaysFigures, days = 30) {
  const today = startOfUtcDay(now);
  const first = today - (days - 1) * DAY;
  const dates = Array.from({ length: days }, (_, index) => utcDate(first + index * DAY));
  const sent = new Map(
    db
      .all<{ date: string; count: number }>(sql`
        select date(sent_at / 1000, 'unixepoch') as date, count(*) as count
          from email_deliveries where sent_at >= ${first} and sent_at <= ${now.getTime()}
         group by date`)
      .map((row) => [row.date, row.count]),
  );
  const snapshots = new Map(
    db
      .all<{ date: string; active: number; storage: number }>(sql`
        select snapshot_date as date, weekly_active_curators as active, total_storage_bytes as storage
          from analytics_snapshots where snapshot_date >= ${dates[0]} and snapshot_date < ${utcDate(today)}`)
      .map((row) => [row.date, row]),
  );
  const todaysDate = utcDate(today);
  return {
    emailsSent: dates.map((date) => ({ date, value: sent.get(date) ?? 0 })),
    activeSenders: dates.map((date) => ({
      date,
      value: date === todaysDate ? live.weeklyActiveSenders : (snapshots.get(date)?.active ?? null),
    })),
    storage: dates.map((date) => ({
      date,
      value: date === todaysDate ? live.storageUsed : (snapshots.get(date)?.storage ?? null),
    })),
  } satisfies Record<string, ChartPoint[]>;
}
