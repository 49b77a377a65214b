import { and, desc, eq, gte, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { createElement } from "react";
import {
  deliveryReports,
  folders,
  mailboxSuppressions,
  securityEvents,
  sendLedger,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import { renderEmail } from "#emails/render.server";
import { SenderPaused, senderPausedSubject } from "#emails/sender-paused";
import { listAdmins } from "~/modules/auth/roles.server";
import { runInBackground } from "~/platform/background-work.server";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { sendEmail } from "~/platform/mailer.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { recordSecurityEvent } from "~/platform/security-events.server";

/**
 * Senders' reputation (docs/product-rules.md, "Senders' reputation"; the
 * numbers and why: docs/decisions/0124-senders-reputation-limits.md). Per
 * sender, over the last 30 days of copies sent: how many of their mailboxes
 * reported spam and how many turned out not to exist. A sender over a limit
 * is paused: nothing of theirs is sent until an admin lifts it, and lifting
 * starts their window afresh.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

export const REPUTATION_LIMITS = {
  windowMs: 30 * DAY_MS,
  /** Below this many copies in the window, no rate is judged: one bounce of two is not 50 %. */
  minimumCopies: 20,
  /** Gmail and Yahoo act at 0.3 %; a pause needs two people, so one grumpy uncle pauses no one. */
  complaints: { minimum: 2, rate: 0.001 },
  /** Mailboxes that do not exist: a typo bounces once; a list of guessed or bought addresses many. */
  hardBounces: { minimum: 3, rate: 0.05 },
} as const;

/** What counts toward a pause, within one window. Mailboxes are counted once per kind. */
export type SenderRates = {
  windowStart: Date;
  copies: number;
  complaints: number;
  hardBounces: number;
  softBounces: number;
  complaintRate: number;
  bounceRate: number;
};

const rate = (count: number, copies: number) => (copies === 0 ? 0 : count / copies);

/** Copies of one sender's newsletters that went out in [start, end] (their own CC excluded). */
function copiesSent(senderUserId: number, start: Date, end: Date) {
  return (
    db
      .select({ n: sql<number>`count(*)` })
      .from(sendLedgerRecipients)
      .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
      .innerJoin(folders, eq(folders.id, sendLedger.folderId))
      .where(
        and(
          eq(folders.userId, senderUserId),
          eq(sendLedgerRecipients.kind, "recipient"),
          isNotNull(sendLedgerRecipients.sentAt),
          gte(sendLedgerRecipients.sentAt, start),
          lte(sendLedgerRecipients.sentAt, end),
        ),
      )
      .get()?.n ?? 0
  );
}

/** Distinct mailboxes per report kind that reached us in [start, end] about one sender's copies. */
function reportedMailboxes(senderUserId: number, start: Date, end: Date) {
  const counts = { hard_bounce: 0, soft_bounce: 0, complaint: 0 };
  for (const row of db
    .select({
      kind: deliveryReports.kind,
      n: sql<number>`count(distinct ${deliveryReports.mailbox})`,
    })
    .from(deliveryReports)
    .where(
      and(
        eq(deliveryReports.senderUserId, senderUserId),
        gte(deliveryReports.createdAt, start),
        lte(deliveryReports.createdAt, end),
      ),
    )
    .groupBy(deliveryReports.kind)
    .all()) {
    counts[row.kind] = row.n;
  }
  return counts;
}

const LIFTED = "sending_pause_lifted";

/** When an admin last lifted the sender's pause: reports before it were judged already. */
function lastLiftedAt(senderUserId: number) {
  return (
    db
      .select({ at: securityEvents.createdAt })
      .from(securityEvents)
      .where(
        and(
          eq(securityEvents.eventType, "admin_access"),
          eq(securityEvents.targetUserId, senderUserId),
          sql`json_extract(${securityEvents.details}, '$.action') = ${LIFTED}`,
        ),
      )
      .orderBy(desc(securityEvents.createdAt))
      .get()?.at ?? null
  );
}

/** The sender's rates over the window that ends now: 30 days, or since an admin last lifted a pause. */
export function senderRates(senderUserId: number, now = new Date()): SenderRates {
  const thirtyDaysAgo = new Date(now.getTime() - REPUTATION_LIMITS.windowMs);
  const lifted = lastLiftedAt(senderUserId);
  const windowStart = lifted && lifted > thirtyDaysAgo ? lifted : thirtyDaysAgo;
  const copies = copiesSent(senderUserId, windowStart, now);
  const reports = reportedMailboxes(senderUserId, windowStart, now);
  return {
    windowStart,
    copies,
    complaints: reports.complaint,
    hardBounces: reports.hard_bounce,
    softBounces: reports.soft_bounce,
    complaintRate: rate(reports.complaint, copies),
    bounceRate: rate(reports.hard_bounce, copies),
  };
}

export type LimitBroken = "complaints" | "hard-bounces";

/** Which limit the rates break, complaints first; null when none (or too few copies to judge). */
export function limitBroken(rates: SenderRates): LimitBroken | null {
  const { minimumCopies, complaints, hardBounces } = REPUTATION_LIMITS;
  if (rates.copies < minimumCopies) return null;
  if (rates.complaints >= complaints.minimum && rates.complaintRate >= complaints.rate) {
    return "complaints";
  }
  if (rates.hardBounces >= hardBounces.minimum && rates.bounceRate >= hardBounces.rate) {
    return "hard-bounces";
  }
  return null;
}

/**
 * Why a sender whose rate is over a limit is not paused, in the postmaster's words: the floors
 * of limitBroken (too few copies, or too few people) hold it back. Null when no rate is over.
 */
export function whyNotPaused(
  rates: Pick<
    SenderRates,
    "copies" | "complaints" | "hardBounces" | "complaintRate" | "bounceRate"
  >,
): string | null {
  const { minimumCopies, complaints, hardBounces } = REPUTATION_LIMITS;
  const overComplaints = rates.complaintRate >= complaints.rate;
  const overBounces = rates.bounceRate >= hardBounces.rate;
  if (!overComplaints && !overBounces) return null;
  if (rates.copies < minimumCopies) {
    return `Under ${minimumCopies} copies: too few to judge a rate`;
  }
  if (overComplaints && rates.complaints < complaints.minimum) {
    return `${rates.complaints} complaint: a pause needs ${complaints.minimum}`;
  }
  if (overBounces && rates.hardBounces < hardBounces.minimum) {
    return `${rates.hardBounces} hard ${rates.hardBounces === 1 ? "bounce" : "bounces"}: a pause needs ${hardBounces.minimum}`;
  }
  return null;
}

/** "1.2 %", "0.1 %": rates as the pages and the e-mails show them. */
export function formatRate(value: number) {
  const percent = value * 100;
  return `${percent.toLocaleString("en-GB", { maximumFractionDigits: percent < 1 ? 2 : 1 })} %`;
}

/** The pause's explanation, in words for the sender and the admins; stored with the pause. */
export function pauseExplanation(rates: SenderRates, broken: LimitBroken) {
  if (broken === "complaints") {
    return `${rates.complaints} people marked your newsletter as spam, out of ${rates.copies} copies sent recently (${formatRate(rates.complaintRate)}; the limit is ${formatRate(REPUTATION_LIMITS.complaints.rate)}).`;
  }
  return `${rates.hardBounces} of the addresses you sent to no longer exist, out of ${rates.copies} copies sent recently (${formatRate(rates.bounceRate)}; the limit is ${formatRate(REPUTATION_LIMITS.hardBounces.rate)}).`;
}

export type SendingPause = { pausedAt: Date; reason: string };

export function sendingPauseOf(user: {
  sendingPausedAt: Date | null;
  sendingPausedReason: string | null;
}): SendingPause | null {
  return user.sendingPausedAt
    ? { pausedAt: user.sendingPausedAt, reason: user.sendingPausedReason ?? "" }
    : null;
}

/** Admin notices share one limit per admin, as the account's own notices do. */
const ADMIN_NOTICE_LIMIT = { name: "mail:admin-notice:address", points: 10, durationSeconds: 3600 };

function tellAdmins(sender: { id: number; email: string }, explanation: string) {
  const reviewUrl = new URL(`/admin/senders/${sender.id}`, env.APP_URL).toString();
  for (const admin of listAdmins()) {
    runInBackground("sender paused notice", async () => {
      const verdict = await consumeRateLimit(ADMIN_NOTICE_LIMIT, `user:${admin.userId}`);
      if (!verdict.allowed) return;
      const { html, text } = renderEmail(
        createElement(SenderPaused, {
          firstName: admin.firstName,
          senderEmail: sender.email,
          explanation,
          reviewUrl,
        }),
      );
      await sendEmail({ to: admin.email, subject: senderPausedSubject(sender.email), html, text });
    });
  }
}

/**
 * Judges one sender now: over a limit, their sending pauses with its
 * explanation, a security event records it and the admins are told, all
 * once (a sender already paused stays as they are). Called before each of
 * their sends and after each delivery report about their mail.
 */
export function reviewSenderReputation(senderUserId: number, now = new Date()) {
  const sender = db.select().from(users).where(eq(users.id, senderUserId)).get();
  if (!sender) return { paused: false, newlyPaused: false };
  if (sender.sendingPausedAt) return { paused: true, newlyPaused: false };
  const rates = senderRates(senderUserId, now);
  const broken = limitBroken(rates);
  if (!broken) return { paused: false, newlyPaused: false };
  const explanation = pauseExplanation(rates, broken);
  const paused = writeTransaction((tx) => {
    // Only the one who sets it records it: two reviews at once pause once.
    const { changes } = tx
      .update(users)
      .set({ sendingPausedAt: now, sendingPausedReason: explanation })
      .where(and(eq(users.id, senderUserId), isNull(users.sendingPausedAt)))
      .run();
    if (changes === 0) return false;
    tx.insert(securityEvents)
      .values({
        eventType: "suspicious_activity",
        severity: "high",
        targetUserId: senderUserId,
        endpoint: "sending:reputation",
        details: {
          action: "sending_paused",
          limit: broken,
          copies: rates.copies,
          complaints: rates.complaints,
          hardBounces: rates.hardBounces,
        },
      })
      .run();
    return true;
  });
  if (paused) tellAdmins(sender, explanation);
  return { paused: true, newlyPaused: paused };
}

/**
 * An admin lifts a sender's pause: held sends go out on the next pass, and
 * the reports judged so far are not judged again. Audited as a security
 * event. Returns false when the sender was not paused.
 */
export function liftSendingPause(request: Request, adminUserId: number, senderUserId: number) {
  return writeTransaction(() => {
    const { changes } = db
      .update(users)
      .set({ sendingPausedAt: null, sendingPausedReason: null })
      .where(and(eq(users.id, senderUserId), isNotNull(users.sendingPausedAt)))
      .run();
    if (changes === 0) return false;
    recordSecurityEvent(request, {
      eventType: "admin_access",
      severity: "medium",
      userId: adminUserId,
      targetUserId: senderUserId,
      details: { action: LIFTED },
    });
    return true;
  });
}

/** One sender as the admin's sender page shows them: their pause and their rates now. */
export function senderReview(senderUserId: number, now = new Date()) {
  const sender = db
    .select({
      id: users.id,
      email: users.email,
      sendingPausedAt: users.sendingPausedAt,
      sendingPausedReason: users.sendingPausedReason,
    })
    .from(users)
    .where(eq(users.id, senderUserId))
    .get();
  if (!sender) return null;
  return {
    id: sender.id,
    email: sender.email,
    pause: sendingPauseOf(sender),
    rates: senderRates(sender.id, now),
  };
}

/**
 * The postmaster view: bounce and complaint rates over the last 30 days for
 * the whole service and per sender (worst first, paused senders marked), as
 * mailbox providers see the shared domain, and the suppressed mailboxes by
 * reason. Grouped queries: one per figure, whatever the number of senders.
 */
export function postmasterOverview(now = new Date()) {
  const start = new Date(now.getTime() - REPUTATION_LIMITS.windowMs);
  const copies = db
    .select({ userId: folders.userId, n: sql<number>`count(*)` })
    .from(sendLedgerRecipients)
    .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(
      and(
        eq(sendLedgerRecipients.kind, "recipient"),
        isNotNull(sendLedgerRecipients.sentAt),
        gte(sendLedgerRecipients.sentAt, start),
        lte(sendLedgerRecipients.sentAt, now),
      ),
    )
    .groupBy(folders.userId)
    .all();
  const reports = db
    .select({
      userId: deliveryReports.senderUserId,
      kind: deliveryReports.kind,
      n: sql<number>`count(distinct ${deliveryReports.mailbox})`,
    })
    .from(deliveryReports)
    .where(
      and(
        isNotNull(deliveryReports.senderUserId),
        gte(deliveryReports.createdAt, start),
        lte(deliveryReports.createdAt, now),
      ),
    )
    .groupBy(deliveryReports.senderUserId, deliveryReports.kind)
    .all();
  const bySender = new Map<number, { copies: number; complaints: number; hardBounces: number }>();
  const entry = (userId: number) => {
    let found = bySender.get(userId);
    if (!found) {
      found = { copies: 0, complaints: 0, hardBounces: 0 };
      bySender.set(userId, found);
    }
    return found;
  };
  for (const row of copies) entry(row.userId).copies = row.n;
  for (const row of reports) {
    if (row.userId === null) continue;
    if (row.kind === "complaint") entry(row.userId).complaints = row.n;
    if (row.kind === "hard_bounce") entry(row.userId).hardBounces = row.n;
  }
  // Senders with mail in the window, and every paused sender even without.
  const known = new Map(
    db
      .select({ id: users.id, email: users.email, pausedAt: users.sendingPausedAt })
      .from(users)
      .where(
        sql`${users.id} in (select value from json_each(${JSON.stringify([...bySender.keys()])})) or ${users.sendingPausedAt} is not null`,
      )
      .all()
      .map((user) => [user.id, user]),
  );
  for (const user of known.values()) entry(user.id);
  const senders = [...bySender.entries()]
    .flatMap(([userId, counts]) => {
      const user = known.get(userId);
      if (!user) return [];
      return [
        {
          userId,
          email: user.email,
          paused: user.pausedAt !== null,
          ...counts,
          complaintRate: rate(counts.complaints, counts.copies),
          bounceRate: rate(counts.hardBounces, counts.copies),
        },
      ];
    })
    .sort(
      (a, b) =>
        Number(b.paused) - Number(a.paused) ||
        b.complaintRate - a.complaintRate ||
        b.bounceRate - a.bounceRate ||
        b.copies - a.copies ||
        a.userId - b.userId,
    );
  const total = senders.reduce(
    (sum, sender) => ({
      copies: sum.copies + sender.copies,
      complaints: sum.complaints + sender.complaints,
      hardBounces: sum.hardBounces + sender.hardBounces,
    }),
    { copies: 0, complaints: 0, hardBounces: 0 },
  );
  const suppressed = { hard_bounce: 0, soft_bounce: 0, complaint: 0 };
  for (const row of db
    .select({ reason: mailboxSuppressions.reason, n: sql<number>`count(*)` })
    .from(mailboxSuppressions)
    .where(
      sql`${mailboxSuppressions.suppressedUntil} is null or ${mailboxSuppressions.suppressedUntil} > ${now.getTime()}`,
    )
    .groupBy(mailboxSuppressions.reason)
    .all()) {
    suppressed[row.reason] = row.n;
  }
  return {
    service: {
      ...total,
      complaintRate: rate(total.complaints, total.copies),
      bounceRate: rate(total.hardBounces, total.copies),
    },
    senders,
    suppressed,
  };
}

export type PostmasterOverview = ReturnType<typeof postmasterOverview>;
