import { and, gt, inArray, isNull, or } from "drizzle-orm";
import { mailboxSuppressions } from "#db/schema";
import { db } from "~/platform/db.server";
import type { DeliveryReportKind } from "./delivery-reports.server";

/**
 * Which mailboxes no sender may mail, and why: the read side of
 * delivery-reports.server.ts, for the sender's and the admin's pages. A soft
 * bounce suppression whose date has passed no longer counts.
 */
export type Suppression = {
  mailbox: string;
  /** The address as it was reported. */
  email: string;
  reason: DeliveryReportKind;
  /** Null: until lifted; a date: a soft bounce suppression ends then. */
  suppressedUntil: Date | null;
  createdAt: Date;
};

/** The suppressions in force for these mailboxes (keys from `mailboxKey`), by mailbox. */
export function suppressionsFor(mailboxes: string[], now = new Date()): Map<string, Suppression> {
  const keys = [...new Set(mailboxes)];
  if (keys.length === 0) return new Map();
  const rows = db
    .select({
      mailbox: mailboxSuppressions.mailbox,
      email: mailboxSuppressions.email,
      reason: mailboxSuppressions.reason,
      suppressedUntil: mailboxSuppressions.suppressedUntil,
      createdAt: mailboxSuppressions.createdAt,
    })
    .from(mailboxSuppressions)
    .where(
      and(
        inArray(mailboxSuppressions.mailbox, keys),
        or(
          isNull(mailboxSuppressions.suppressedUntil),
          gt(mailboxSuppressions.suppressedUntil, now),
        ),
      ),
    )
    .all();
  return new Map(rows.map((row) => [row.mailbox, row]));
}

export function suppressionFor(mailbox: string, now = new Date()): Suppression | null {
  return suppressionsFor([mailbox], now).get(mailbox) ?? null;
}
