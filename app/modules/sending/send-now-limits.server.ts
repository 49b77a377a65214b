import { and, eq, gte, inArray, sql } from "drizzle-orm";
import { folders, sendLedger, sendLedgerRecipients } from "#db/schema";
import { db } from "~/platform/db.server";
import { comparableEmail } from "~/platform/email-address";
import { RuleError } from "~/platform/errors.server";

/**
 * Send Now's limits protect the people who receive it, not the button
 * (docs/product-rules.md, "Send Now"; docs/decisions/0193-send-now-limited-for-recipients.md):
 * a mailbox gets at most a few issues a day from one sender by Send Now, whichever of
 * the sender's folders they come from, and an account opens a bounded number of sends
 * an hour (a script with a token included). Both are counted from the sends that
 * went (the ledger), so a refused Send Now never counts, a restart forgets nothing,
 * and two clicks at once cannot both slip under the limit (the count runs in the
 * send's own write transaction).
 */
export const SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY = 3;
export const SEND_NOW_SENDS_PER_ACCOUNT_PER_HOUR = 20;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A Send Now over a limit: the message says which, and when it may go. */
export class SendNowLimitError extends RuleError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

function untilFree(oldest: Date, windowMs: number, now: Date) {
  return Math.max(60, Math.ceil((oldest.getTime() + windowMs - now.getTime()) / 1000));
}

function inWords(seconds: number) {
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return minutes === 1 ? "a minute" : `${minutes} minutes`;
  const hours = Math.ceil(minutes / 60);
  return hours === 1 ? "an hour" : `${hours} hours`;
}

/**
 * Throws SendNowLimitError when a Send Now of this sender's to these
 * recipients would pass a limit. Run inside the transaction that opens the send.
 */
export function checkSendNowLimits(userId: number, recipientEmails: string[], now: Date) {
  const ownSendNows = and(
    eq(folders.userId, userId),
    eq(sendLedger.trigger, "send_now"),
    inArray(sendLedger.status, ["sending", "sent", "failed"]),
  );

  const lastHour = db
    .select({ createdAt: sendLedger.createdAt })
    .from(sendLedger)
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(and(ownSendNows, gte(sendLedger.createdAt, new Date(now.getTime() - HOUR_MS))))
    .orderBy(sendLedger.createdAt)
    .all();
  if (lastHour.length >= SEND_NOW_SENDS_PER_ACCOUNT_PER_HOUR) {
    const wait = untilFree(lastHour[0]!.createdAt, HOUR_MS, now);
    throw new SendNowLimitError(
      `You have used Send Now ${lastHour.length} times in the last hour. Please try again in ${inWords(wait)}.`,
      wait,
    );
  }

  const mailboxes = [...new Set(recipientEmails.map(comparableEmail))];
  if (mailboxes.length === 0) return;
  const lastDay = db
    .select({
      email: sendLedgerRecipients.email,
      issues: sql<number>`count(distinct ${sendLedger.id})`,
      oldest: sql<number>`min(${sendLedger.createdAt})`,
    })
    .from(sendLedgerRecipients)
    .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(
      and(
        ownSendNows,
        gte(sendLedger.createdAt, new Date(now.getTime() - DAY_MS)),
        eq(sendLedgerRecipients.kind, "recipient"),
        inArray(sendLedgerRecipients.email, mailboxes),
      ),
    )
    .groupBy(sendLedgerRecipients.email)
    .all();
  const full = lastDay.filter((row) => row.issues >= SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY);
  if (full.length === 0) return;
  const wait = Math.max(...full.map((row) => untilFree(new Date(row.oldest), DAY_MS, now)));
  const who = full.length === 1 ? full[0]!.email : `${full.length} of this folder's recipients`;
  throw new SendNowLimitError(
    `Send Now reaches a recipient at most ${SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY} times a day, and ${who} ${full.length === 1 ? "has" : "have"} had ${SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY} today. Please try again in ${inWords(wait)}, or let the folder go on its schedule.`,
    wait,
  );
}
