import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import {
  analyticsSnapshots,
  contentItems,
  emailDeliveries,
  emailUnsubscribes,
  folderRecipientStates,
  folders,
  referralCodes,
  referrals,
  securityEvents,
  securityRejections,
  sendLedger,
  sendLedgerRecipients,
  userRoles,
  users,
} from "#db/schema";
import { db } from "~/platform/db.server";
import { countDroppedRequest } from "~/platform/dropped-requests.server";
import {
  getBusinessMetrics,
  getDailySeries,
  getRecentActivity,
  getSecurityDashboard,
  getSystemHealth,
  getUnsubscribeReasons,
  getUsageStats,
  startOfUtcWeek,
  takeAnalyticsSnapshot,
  trendOf,
} from "./admin-metrics.server";

/** Wednesday 18 June 2025, noon UTC: the week began on Monday the 16th. */
const NOW = new Date("2025-06-18T12:00:00.000Z");
const at = (iso: string) => new Date(iso);
const MB = 1024 * 1024;

function user(email: string, created: string, extra: Partial<typeof users.$inferInsert> = {}) {
  return createUser(db, { email, createdAt: at(created), emailVerified: true, ...extra });
}

function folder(userId: number, name: string, emails: string[]) {
  return createFolder(db, userId, {
    name,
    recipients: emails.map((email) => ({ name: email, email })),
  });
}

function delivery(
  folderId: number,
  sent: string,
  itemCount: number,
  emailSizeBytes: number,
  breakdown: { links: number; photos: number; files: number } | null,
) {
  db.insert(emailDeliveries)
    .values({
      folderId,
      recipientEmail: "x@a.test",
      sentAt: at(sent),
      itemCount,
      emailSizeBytes,
      contentBreakdown: breakdown ? { ...breakdown, musings: 0 } : null,
    })
    .run();
}

function event(
  eventType: (typeof securityEvents.$inferInsert)["eventType"],
  created: string,
  extra: Partial<typeof securityEvents.$inferInsert> = {},
) {
  db.insert(securityEvents)
    .values({ eventType, createdAt: at(created), ...extra })
    .run();
}

function rejection(timestamp: string, threatLevel: string) {
  db.insert(securityRejections)
    .values({ timestamp: at(timestamp), threatLevel, threatType: "executable" })
    .run();
}

/**
 * The known data set (docs/decisions/0031-admin-dashboard-figures.md
 * says what each figure means):
 * - Ada (premium, active), Ben (free, one completed referral), Cy (free, signed
 *   up today), Dee (premium but cancelled, so free).
 * - Ada's folders F1 (x, y) and F2 (z); Ben's F3 (x, w, v). y bounced in F1, w
 *   unsubscribed from F3, z unsubscribed from everything: 3 of 6 pairs stay.
 * - Items: F1 a link (17 June) and a photo of 1,000 + 2,000 bytes (10 June);
 *   F2 a sent file of 5,000 bytes; F3 a file of 4,000 bytes (1 June).
 * - E-mails: today, Monday, 12 June, 5 June and 1 April.
 */
beforeAll(() => {
  const ada = user("ada@example.com", "2025-05-01T00:00:00Z", {
    subscriptionTier: "premium",
    subscriptionStatus: "active",
  });
  const ben = user("ben@example.com", "2025-06-01T00:00:00Z");
  const cy = user("cy@example.com", "2025-06-18T10:00:00Z");
  user("dee@example.com", "2025-05-15T00:00:00Z", {
    subscriptionTier: "premium",
    subscriptionStatus: "canceled",
  });
  db.insert(referralCodes).values({ userId: ben.id, code: "BEN1" }).run();
  db.insert(referrals)
    .values({
      referrerUserId: ben.id,
      inviteeUserId: cy.id,
      referralCode: "BEN1",
      status: "completed",
      completedAt: at("2025-06-18T10:05:00Z"),
    })
    .run();
  db.insert(userRoles)
    .values({ userId: ada.id, role: "admin", grantedAt: at("2025-06-02T00:00:00Z") })
    .run();

  const f1 = folder(ada.id, "F1", ["x@a.test", "y@a.test"]);
  const f2 = folder(ada.id, "F2", ["z@a.test"]);
  const f3 = folder(ben.id, "F3", ["x@a.test", "w@b.test", "v@b.test"]);
  db.insert(folderRecipientStates)
    .values([
      { folderId: f1.id, email: "y@a.test", status: "bounced" },
      { folderId: f3.id, email: "w@b.test", status: "unsubscribed" },
      { folderId: f3.id, email: "v@b.test", status: "active" },
    ])
    .run();
  db.insert(emailUnsubscribes).values({ email: "z@a.test" }).run();

  db.insert(contentItems)
    .values([
      { folderId: f1.id, type: "link", title: "L", createdAt: at("2025-06-17T08:00:00Z") },
      {
        folderId: f1.id,
        type: "photo",
        title: "P",
        fileSizes: [1000, 2000],
        createdAt: at("2025-06-10T08:00:00Z"),
      },
      {
        folderId: f2.id,
        type: "file",
        title: "Sent",
        fileSizes: [5000],
        createdAt: at("2025-05-01T08:00:00Z"),
        sentAt: at("2025-05-05T00:01:00Z"),
      },
      {
        folderId: f3.id,
        type: "file",
        title: "F",
        fileSizes: [4000],
        createdAt: at("2025-06-01T08:00:00Z"),
      },
    ])
    .run();

  delivery(f2.id, "2025-06-18T01:00:00Z", 2, 1000, { links: 1, photos: 1, files: 0 });
  delivery(f2.id, "2025-06-16T09:00:00Z", 4, 3000, { links: 2, photos: 0, files: 2 });
  delivery(f3.id, "2025-06-12T00:00:00Z", 3, 2000, null);
  delivery(f3.id, "2025-06-05T00:00:00Z", 5, 9000, { links: 5, photos: 0, files: 0 });
  delivery(f3.id, "2025-04-01T00:00:00Z", 10, 9999, { links: 10, photos: 0, files: 0 });
  delivery(f3.id, "2025-06-18T13:00:00Z", 1, 1, null); // after NOW: not counted

  const ledger = db
    .insert(sendLedger)
    .values({
      folderId: f2.id,
      occurrenceKey: "2025-06-18T00:01",
      trigger: "schedule",
      status: "sent",
      completedAt: at("2025-06-18T01:00:00Z"),
    })
    .returning()
    .get();
  db.insert(sendLedgerRecipients)
    .values({ ledgerId: ledger.id, email: "z@a.test", status: "sent" })
    .run();

  // The last 24 hours (since 17 June, noon).
  event("failed_login", "2025-06-18T11:00:00Z", { ipAddress: "1.1.1.1" });
  event("failed_login", "2025-06-18T09:00:00Z", { ipAddress: "1.1.1.1" });
  event("failed_login", "2025-06-17T20:00:00Z", { ipAddress: "2.2.2.2" });
  event("rate_limit_exceeded", "2025-06-18T11:30:00Z", {
    ipAddress: "2.2.2.2",
    severity: "medium",
  });
  event("unauthorized_access", "2025-06-18T11:45:00Z", {
    endpoint: "/admin/dashboard",
    severity: "medium",
  });
  event("unauthorized_access", "2025-06-18T06:00:00Z", { endpoint: "/admin/security" });
  event("suspicious_activity", "2025-06-17T18:00:00Z", { ipAddress: "3.3.3.3", severity: "high" });
  // The 24 hours before.
  event("failed_login", "2025-06-17T00:00:00Z", { ipAddress: "9.9.9.9" });
  event("failed_login", "2025-06-16T18:00:00Z", { ipAddress: "9.9.9.9" });
  // Older, and after NOW.
  event("admin_access", "2025-06-01T12:00:00Z", { severity: "critical" });
  event("failed_login", "2025-06-18T13:00:00Z", { ipAddress: "1.1.1.1", severity: "critical" });

  rejection("2025-06-18T08:00:00Z", "high");
  rejection("2025-06-17T06:00:00Z", "medium");
  rejection("2025-06-17T05:00:00Z", "medium");
});

describe("business metrics", () => {
  test("the week starts on Monday, UTC", () => {
    expect(new Date(startOfUtcWeek(NOW)).toISOString()).toBe("2025-06-16T00:00:00.000Z");
  });

  test("every figure of the Business Metrics tab", () => {
    expect(getBusinessMetrics(NOW)).toEqual({
      weeklyActiveUsers: 2, // Ada added an item and was sent; Ben's F3 was sent on 12 June
      totalUsers: 4,
      totalContent: 4,
      totalRecipients: 5,
      totalEmailsSent: 5,
      emailsSentToday: 1,
      emailsSentThisWeek: 2,
      emailsSentLast30Days: 4,
      averageItemsPerEmail: 3.5, // (2 + 4 + 3 + 5) / 4
      retentionRate: 50, // 3 of 6 recipient pairs still receive
      averageRecipientsPerFolder: 2,
      averageFoldersPerUser: 0.75,
      averageEmailSizeBytes: 3750,
      averageFoldersPerWeeklyCurator: 1.5,
      averageEmailSizeBytesPerWeeklyCurator: 2000, // the e-mails of the last 7 days
      averageLinksPerEmail: 2,
      averagePhotosPerEmail: 0.25,
      averageFilesPerEmail: 0.5,
    });
  });
});

describe("unsubscribe reasons", () => {
  test("counts of the last 30 days, every reason listed, rows without a reason left out", () => {
    const listed = db.select().from(folders).all()[0]!;
    const left = (email: string, when: string | null, reason: string | null) =>
      db
        .insert(folderRecipientStates)
        .values({
          folderId: listed.id,
          email,
          status: "unsubscribed",
          unsubscribedAt: when ? at(when) : null,
          unsubscribeReason: reason,
        })
        .run();
    left("r1@reasons.test", "2025-06-17T00:00:00Z", "too_frequent");
    left("r2@reasons.test", "2025-05-20T00:00:00Z", "too_frequent");
    left("r3@reasons.test", "2025-06-01T00:00:00Z", "unknown");
    left("r4@reasons.test", "2025-05-18T11:00:00Z", "other"); // 31 days ago
    left("r5@reasons.test", "2025-06-18T13:00:00Z", "other"); // after NOW
    left("r6@reasons.test", null, null); // reached through another sender's folder
    expect(getUnsubscribeReasons(NOW)).toEqual([
      { reason: "unknown", count: 1 },
      { reason: "not_interested", count: 0 },
      { reason: "too_frequent", count: 2 },
      { reason: "other", count: 0 },
    ]);
    db.delete(folderRecipientStates)
      .where(sql`${folderRecipientStates.email} like '%@reasons.test'`)
      .run();
  });
});

describe("usage and revenue", () => {
  test("storage, tiers and revenue", () => {
    expect(getUsageStats()).toEqual({
      totalStorageUsed: 7000, // unsent files only
      totalStorageLimit: 160 * MB, // Ben 50 + 10 (referral), Cy 50, Dee 50; premium adds nothing
      storagePercentage: 0,
      premiumUsers: 1,
      freeUsers: 3,
      subscriptionRevenue: 499,
      avgStoragePerUser: 1750,
    });
  });
});

describe("system health", () => {
  test("uptime, memory and the database", () => {
    const health = getSystemHealth();
    expect(health.uptime).toBe(Math.floor(process.uptime()));
    expect(health.memoryUsage.used).toBeGreaterThan(0);
    expect(health.memoryUsage.total).toBeGreaterThan(health.memoryUsage.used);
    expect(health.memoryUsage.percentage).toBeGreaterThan(0);
    expect(health.databaseStatus).toMatchObject({
      status: "connected",
      activeConnections: 1,
      totalConnections: 1,
    });
    expect(health.databaseStatus.queryPerformance).toBeGreaterThanOrEqual(0);
  });

  test("the data volume's free space against the reserve kept for the database", () => {
    const { diskReserve } = getSystemHealth();
    expect(diskReserve.reserveBytes).toBe(256 * 1024 * 1024);
    expect(diskReserve.freeBytes).toBeGreaterThan(0);
    expect(diskReserve.state).toBe(
      diskReserve.freeBytes! >= diskReserve.reserveBytes ? "kept" : "in use",
    );
  });

  test("the requests dropped or refused since the process started", () => {
    const before = getSystemHealth().droppedRequests["went away"];
    countDroppedRequest("went away");
    expect(getSystemHealth().droppedRequests["went away"]).toBe(before + 1);
  });
});

describe("recent activity", () => {
  test("the 8 newest sign-ups, sends, role changes and security events", () => {
    expect(getRecentActivity(NOW)).toEqual([
      {
        description: "Unauthorized access on /admin/dashboard",
        severity: "medium",
        timestamp: "2025-06-18T11:45:00.000Z",
      },
      {
        description: "Rate limit exceeded from 2.2.2.2",
        severity: "medium",
        timestamp: "2025-06-18T11:30:00.000Z",
      },
      {
        description: "Failed login from 1.1.1.1",
        severity: "low",
        timestamp: "2025-06-18T11:00:00.000Z",
      },
      {
        description: "New account: cy@example.com",
        severity: "low",
        timestamp: "2025-06-18T10:00:00.000Z",
      },
      {
        description: "Failed login from 1.1.1.1",
        severity: "low",
        timestamp: "2025-06-18T09:00:00.000Z",
      },
      {
        description: "Unauthorized access on /admin/security",
        severity: "low",
        timestamp: "2025-06-18T06:00:00.000Z",
      },
      {
        description: "Folder “F2” sent to 1 recipient",
        severity: "low",
        timestamp: "2025-06-18T01:00:00.000Z",
      },
      {
        description: "Failed login from 2.2.2.2",
        severity: "low",
        timestamp: "2025-06-17T20:00:00.000Z",
      },
    ]);
    expect(
      getRecentActivity(new Date("2025-06-02T12:00:00Z"), 2).map((a) => a.description),
    ).toEqual(["Role admin granted to ada@example.com", "Admin access"]);
  });

  test("things of the same instant come the later step first, on every load", () => {
    const instant = "2031-01-06T00:01:00Z";
    const eve = user("eve@example.com", instant);
    db.insert(userRoles)
      .values({ userId: eve.id, role: "admin", grantedAt: at(instant) })
      .run();
    event("admin_access", instant, { endpoint: "/admin/dashboard" });
    const listed = () => getRecentActivity(at(instant), 3).map((a) => a.description);
    try {
      expect(listed()).toEqual([
        "Admin access on /admin/dashboard",
        "Role admin granted to eve@example.com",
        "New account: eve@example.com",
      ]);
    } finally {
      db.delete(securityEvents)
        .where(sql`created_at = ${at(instant).getTime()}`)
        .run();
      db.delete(userRoles).where(sql`user_id = ${eve.id}`).run();
      db.delete(users).where(sql`id = ${eve.id}`).run();
    }
  });
});

describe("security dashboard", () => {
  test("counts two-factor set-ups, wrong codes, recovery codes used and refused mail to folders", () => {
    const later = new Date("2026-01-10T12:00:00.000Z");
    const events = [
      ["two_factor_enrolled", "2026-01-10T08:00:00Z"],
      ["two_factor_failed", "2026-01-10T09:00:00Z"],
      ["two_factor_failed", "2026-01-10T10:00:00Z"],
      ["recovery_code_used", "2026-01-10T11:00:00Z"],
      ["inbound_mail_refused", "2026-01-10T11:30:00Z"],
      ["two_factor_failed", "2026-01-08T11:00:00Z"], // before the last 24 hours
    ] as const;
    db.insert(securityEvents)
      .values(events.map(([eventType, time]) => ({ eventType, createdAt: at(time) })))
      .run();
    expect(getSecurityDashboard(later).metrics).toMatchObject({
      twoFactorEnrolments: 1,
      twoFactorFailures: 2,
      recoveryCodesUsed: 1,
      inboundMailRefused: 1,
    });
  });

  test("metrics, trends, recent events and top addresses", () => {
    const security = getSecurityDashboard(NOW);
    expect(security.metrics).toEqual({
      criticalAlerts: 2, // the high suspicious_activity and the high upload threat
      failedLogins: 3,
      totalFileThreats: 1,
      rateLimitViolations: 1,
      unauthorizedAccess: 2,
      totalSecurityEvents: 7,
      twoFactorEnrolments: 0,
      twoFactorFailures: 0,
      recoveryCodesUsed: 0,
      inboundMailRefused: 0,
    });
    expect(security.trends).toEqual({
      securityEvents: { current: 7, previous: 2, direction: "up" },
      fileThreats: { current: 1, previous: 2, direction: "down" },
    });
    expect(security.recentEvents.map((e) => [e.eventType, e.ipAddress, e.createdAt])).toEqual([
      ["unauthorized_access", null, "2025-06-18T11:45:00.000Z"],
      ["rate_limit_exceeded", "2.2.2.2", "2025-06-18T11:30:00.000Z"],
      ["failed_login", "1.1.1.1", "2025-06-18T11:00:00.000Z"],
      ["failed_login", "1.1.1.1", "2025-06-18T09:00:00.000Z"],
      ["unauthorized_access", null, "2025-06-18T06:00:00.000Z"],
    ]);
    expect(security.breakdowns.topIPs).toEqual([
      { ip: "1.1.1.1", count: 2 },
      { ip: "2.2.2.2", count: 2 },
      { ip: "3.3.3.3", count: 1 },
    ]);
  });

  test("a trend is stable when nothing changed", () => {
    expect(trendOf(0, 0).direction).toBe("stable");
    expect(trendOf(3, 3).direction).toBe("stable");
  });
});

describe("daily snapshots", () => {
  test("one row per day, drawn with the e-mails of each of the last 30 days", () => {
    takeAnalyticsSnapshot(NOW);
    takeAnalyticsSnapshot(NOW);
    const rows = db.select().from(analyticsSnapshots).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      snapshotDate: "2025-06-18",
      weeklyActiveCurators: 2,
      totalCurators: 4,
      totalRecipients: 5,
      totalEmailsSent: 5,
      emailsSentLast30Days: 4,
      recipientRetentionRate: 50,
      totalStorageBytes: 7000,
    });

    const live = {
      weeklyActiveSenders: getBusinessMetrics(NOW).weeklyActiveUsers,
      storageUsed: getUsageStats().totalStorageUsed,
    };
    expect(live).toEqual({ weeklyActiveSenders: 2, storageUsed: 7000 });
    const series = getDailySeries(NOW, live);
    expect(series.emailsSent).toHaveLength(30);
    expect(series.emailsSent[0]?.date).toBe("2025-05-20");
    expect(series.emailsSent.filter((point) => point.value).map((p) => [p.date, p.value])).toEqual([
      ["2025-06-05", 1],
      ["2025-06-12", 1],
      ["2025-06-16", 1],
      ["2025-06-18", 1],
    ]);
    expect(series.activeSenders.at(-1)).toEqual({ date: "2025-06-18", value: 2 });
    expect(series.activeSenders.at(-2)).toEqual({ date: "2025-06-17", value: null });
    expect(series.storage.at(-1)).toEqual({ date: "2025-06-18", value: 7000 });
  });

  test("the charts end on today's live figures, so they agree with the cards above them", () => {
    // A snapshot of an earlier day is drawn as it was; today's, written hours ago, is not.
    db.insert(analyticsSnapshots)
      .values([
        { snapshotDate: "2025-06-10", weeklyActiveCurators: 1, totalStorageBytes: 1234 },
        { snapshotDate: "2025-06-18", weeklyActiveCurators: 9, totalStorageBytes: 99 },
      ])
      .onConflictDoUpdate({
        target: analyticsSnapshots.snapshotDate,
        set: { weeklyActiveCurators: 9, totalStorageBytes: 99 },
      })
      .run();
    const series = getDailySeries(NOW, { weeklyActiveSenders: 2, storageUsed: 7000 });
    const drawn = (points: { date: string; value: number | null }[]) =>
      points.filter((point) => point.value !== null).map((point) => [point.date, point.value]);
    expect(drawn(series.activeSenders)).toEqual([
      ["2025-06-10", 1],
      ["2025-06-18", 2],
    ]);
    expect(drawn(series.storage)).toEqual([
      ["2025-06-10", 1234],
      ["2025-06-18", 7000],
    ]);
  });
});
