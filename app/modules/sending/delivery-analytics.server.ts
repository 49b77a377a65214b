import { and, eq, gt, isNotNull, lt, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { emailDeliveries, folders, sendLedger } from "#db/schema";
import { ANALYTICS_DETAIL_RETENTION_DAYS } from "~/modules/plans/limits";
import { db, writeTransaction } from "~/platform/db.server";
import { issueItems } from "./sent-archive.server";
import { findRecipientCopy } from "./web-version.server";

/**
 * Delivery analytics, a Premium perk
 * (docs/decisions/0069-delivery-analytics.md). A send is tracked when its sender was Premium as it opened
 * (`send_ledger.tracked`): only then does the HTML carry the open image and
 * the click links. Opens and clicks are counted on the recipient's
 * `email_deliveries` row and the folder's totals, and only while the
 * recipient is still subscribed to the folder (findRecipientCopy refuses
 * anyone who left). The sender's own copy is never counted.
 */

/** The longest user agent kept: enough to tell a mail app from a browser. */
const USER_AGENT_MAX = 200;

function countable(purpose: "open" | "click", code: string) {
  const copy = findRecipientCopy(purpose, code);
  return copy?.ledger.tracked && copy.asRecipient ? copy : null;
}

/**
 * Engagement score of a folder: the share of its tracked copies (in the
 * detail retention window) that were opened or clicked, 0 to 1.
 */
function refreshEngagement(folderId: number, now: Date) {
  const since = new Date(now.getTime() - ANALYTICS_DETAIL_RETENTION_DAYS * 86_400_000);
  const figures = db
    .select({
      copies: sql<number>`count(*)`,
      engaged: sql<number>`sum(case when ${emailDeliveries.openCount} > 0 or ${emailDeliveries.clickCount} > 0 then 1 else 0 end)`,
    })
    .from(emailDeliveries)
    .innerJoin(sendLedger, eq(sendLedger.id, emailDeliveries.ledgerId))
    .where(
      and(
        eq(emailDeliveries.folderId, folderId),
        gt(emailDeliveries.sentAt, since),
        eq(sendLedger.tracked, true),
      ),
    )
    .get();
  const score = figures?.copies ? (figures.engaged ?? 0) / figures.copies : 0;
  db.update(folders).set({ engagementScore: score }).where(eq(folders.id, folderId)).run();
}

/**
 * One open or click: on the copy's delivery row and then, if it has one, on
 * its folder's totals and engagement score, in one transaction.
 */
function countEngagement(
  copy: NonNullable<ReturnType<typeof findRecipientCopy>>,
  delivery: SQLiteUpdateSetSource<typeof emailDeliveries>,
  folder: SQLiteUpdateSetSource<typeof folders>,
  now: Date,
) {
  writeTransaction((tx) => {
    const changed = tx
      .update(emailDeliveries)
      .set(delivery)
      .where(
        and(
          eq(emailDeliveries.ledgerId, copy.ledger.id),
          eq(emailDeliveries.recipientEmail, copy.email),
        ),
      )
      .run().changes;
    if (changed === 0) return;
    tx.update(folders)
      .set({ ...folder, lastEngagementAt: now })
      .where(eq(folders.id, copy.ledger.folderId))
      .run();
    refreshEngagement(copy.ledger.folderId, now);
  });
}

/** An open image was loaded. Returns whether it counted. */
export function recordOpen(code: string, userAgent: string | null, now = new Date()) {
  const copy = countable("open", code);
  if (!copy) return false;
  countEngagement(
    copy,
    {
      openCount: sql`${emailDeliveries.openCount} + 1`,
      openedAt: sql`coalesce(${emailDeliveries.openedAt}, ${now.getTime()})`,
      lastOpenedAt: now,
      userAgent: userAgent?.slice(0, USER_AGENT_MAX) ?? null,
    },
    { totalOpens: sql`${folders.totalOpens} + 1` },
    now,
  );
  return true;
}

/**
 * A click link was followed. Returns where to send the reader: the address
 * only if it is one of that issue's own links, else null (never an open
 * redirect). The click is counted only for a tracked copy of someone still
 * subscribed; the redirect works either way while the issue exists.
 */
export function followClick(code: string, url: string, now = new Date()) {
  const copy = findRecipientCopy("click", code);
  if (!copy) return null;
  const inIssue = issueItems(copy.ledger).some((item) => item.urls.includes(url));
  if (!inIssue || !/^https?:\/\//i.test(url)) return null;
  if (copy.ledger.tracked && copy.asRecipient) {
    countEngagement(
      copy,
      { clickCount: sql`${emailDeliveries.clickCount} + 1` },
      { totalClicks: sql`${folders.totalClicks} + 1` },
      now,
    );
  }
  return url;
}

/**
 * The nightly forgetting: past ANALYTICS_DETAIL_RETENTION_DAYS after a send,
 * the user agent of its copies is dropped (the counts stay with the issue).
 */
export function pruneAnalyticsDetails(now = new Date()) {
  const before = new Date(now.getTime() - ANALYTICS_DETAIL_RETENTION_DAYS * 86_400_000);
  return db
    .update(emailDeliveries)
    .set({ userAgent: null })
    .where(and(lt(emailDeliveries.sentAt, before), isNotNull(emailDeliveries.userAgent)))
    .run().changes;
}
