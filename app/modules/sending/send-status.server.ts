import { and, eq, inArray, sql } from "drizzle-orm";
import { folders, relayRefusals, sendLedger, sendLedgerRecipients } from "#db/schema";
import type { SendLedgerRecipient } from "#db/types";
import { formatDateTime, formatSoon } from "~/platform/dates";
import { db } from "~/platform/db.server";
import { relayHold } from "./relay-hold.server";
import { SEND_UNDER_WAY } from "./send-now";

/**
 * What a folder's latest send is doing, in the sender's words, for the folder page, its card
 * and Send Now (docs/decisions/0243-the-sender-sees-what-the-send-is-doing.md): copies that
 * wait ("3 of 5 sent, the rest retry at 00:25"), or a send that failed, why and what to do.
 * A send that went, or none yet, says nothing here. Read from the ledger's copies, the relay's
 * refusal of the message if it made one, and the relay's hold (relay-hold.server.ts).
 */
export type SendStatus =
  | {
      state: "under way";
      /** "3 of 5 sent, the rest retry at 00:25". */
      line: string;
      /** What the sender may do, when there is something to say. */
      todo: string | null;
    }
  | {
      state: "failed";
      /** "The send of Mon 30 Nov 2026, 00:01 did not go out". */
      line: string;
      why: string;
      todo: string;
    };

/** Written on a send's copies when they were given up without a try (sending.server.ts). */
export const NOTHING_LEFT = "Nothing left to send";
export const EVERY_FILE_MISSING = "Every item's stored file is missing";

type Copy = Pick<
  SendLedgerRecipient,
  "status" | "kind" | "nextAttemptAt" | "lastError" | "attempts"
>;

/** A relay's words that say the message is too big (552, or the enhanced 5.3.4). */
const TOO_BIG = /^552\b|\b5\.3\.4\b/;

function quoted(words: string) {
  return `"${words.replace(/\s+/g, " ").trim()}"`;
}

function countLine(copies: Copy[]) {
  const recipients = copies.filter(
    (copy) => copy.kind === "recipient" && copy.status !== "skipped",
  );
  const sent = recipients.filter((copy) => copy.status === "sent").length;
  return { sent, total: recipients.length };
}

function underWay(
  copies: Copy[],
  refusal: { answer: string } | null,
  hold: { nextTryAt: Date | null } | null,
  timeZone: string,
  now: Date,
): SendStatus {
  const { sent, total } = countLine(copies);
  const counted = `${sent} of ${total} sent`;
  const soon = (date: Date) => formatSoon(date, timeZone, now);
  const pending = copies.filter((copy) => copy.status === "pending");
  if (hold) {
    const next =
      hold.nextTryAt && hold.nextTryAt > now ? `: next try at ${soon(hold.nextTryAt)}` : "";
    return {
      state: "under way",
      line: `${counted}, the rest wait for our mail service, which is not taking mail right now${next}`,
      todo: "Nothing to do: they go as soon as it takes mail again, and we have been told.",
    };
  }
  const waiting = pending
    .map((copy) => copy.nextAttemptAt)
    .filter((at): at is Date => at !== null && at > now)
    .sort((a, b) => a.getTime() - b.getTime());
  if (waiting.length < pending.length || waiting.length === 0) {
    return { state: "under way", line: `Sending now: ${counted}`, todo: null };
  }
  const line = `${counted}, the rest retry at ${soon(waiting[0]!)}`;
  if (refusal) {
    return {
      state: "under way",
      line,
      todo: TOO_BIG.test(refusal.answer)
        ? `The mail service refused the issue as too big (${quoted(refusal.answer)}). If it is refused again, its items stay here: send fewer or smaller files at once.`
        : `The mail service refused the issue (${quoted(refusal.answer)}). Nothing to do yet: it tries again.`,
    };
  }
  return { state: "under way", line, todo: null };
}

function failed(
  copies: Copy[],
  refusal: { answer: string } | null,
  hold: { answer: string } | null,
  endedAt: Date,
  timeZone: string,
): SendStatus | null {
  const errors = copies.map((copy) => copy.lastError);
  // The sender deleted every item meanwhile: there is nothing to tell.
  if (errors.includes(NOTHING_LEFT)) return null;
  const line = `The send of ${formatDateTime(endedAt, timeZone)} did not go out`;
  const itemsStay = "Its items are still in the folder";
  if (errors.includes(EVERY_FILE_MISSING)) {
    return {
      state: "failed",
      line,
      why: "The stored file of every item it carried is missing.",
      todo: "Add them again: each item below says which. They go with the next send.",
    };
  }
  if (refusal) {
    return TOO_BIG.test(refusal.answer)
      ? {
          state: "failed",
          line,
          why: `The mail service refused it as too big (${quoted(refusal.answer)}).`,
          todo: `${itemsStay}: send fewer or smaller files at once (remove some, Send Now, then add them back for the next issue).`,
        }
      : {
          state: "failed",
          line,
          why: `The mail service refused the issue itself (${quoted(refusal.answer)}).`,
          todo: `${itemsStay} and go with the next send. If it is refused again, write to us from the support page.`,
        };
  }
  const recipients = copies.filter((copy) => copy.kind === "recipient");
  if (recipients.length > 0 && recipients.every((copy) => copy.status === "bounced")) {
    return {
      state: "failed",
      line,
      why: "Every recipient's address bounced: their mail servers say the mailboxes do not exist.",
      todo: "Check the addresses in Recipients; an address that bounced can be asked back from there.",
    };
  }
  if (hold) {
    return {
      state: "failed",
      line,
      why: `Our mail service is not taking mail right now (${quoted(hold.answer)}).`,
      todo: `${itemsStay}: nothing to do, they go with the next send once it takes mail again.`,
    };
  }
  const last = copies.find((copy) => copy.lastError !== null);
  const tries = Math.max(0, ...copies.map((copy) => copy.attempts));
  return {
    state: "failed",
    line,
    why: `The mail service did not take it after ${tries} ${tries === 1 ? "try" : "tries"}${last?.lastError ? ` (${quoted(last.lastError)})` : ""}.`,
    todo: `${itemsStay}: they go with the next send, or press Send Now to try again.`,
  };
}

/**
 * Each of the sender's folders whose latest send is under way or failed, by folder id, in
 * a constant number of queries.
 */
export function sendStatuses(userId: number, timeZone: string, now: Date) {
  const latest = db
    .select({
      id: sendLedger.id,
      folderId: sendLedger.folderId,
      status: sendLedger.status,
      completedAt: sendLedger.completedAt,
    })
    .from(sendLedger)
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(
      and(
        eq(folders.userId, userId),
        inArray(sendLedger.status, ["sending", "failed"]),
        // The folder's latest send that was not skipped: a later one tells its own story.
        sql`${sendLedger.id} = (select max(latest.id) from ${sendLedger} latest
          where latest.folder_id = ${sendLedger.folderId} and latest.status <> 'skipped')`,
      ),
    )
    .all();
  const statuses = new Map<number, SendStatus>();
  if (latest.length === 0) return statuses;
  const ids = latest.map((ledger) => ledger.id);
  const copies = db
    .select({
      ledgerId: sendLedgerRecipients.ledgerId,
      status: sendLedgerRecipients.status,
      kind: sendLedgerRecipients.kind,
      nextAttemptAt: sendLedgerRecipients.nextAttemptAt,
      lastError: sendLedgerRecipients.lastError,
      attempts: sendLedgerRecipients.attempts,
    })
    .from(sendLedgerRecipients)
    .where(inArray(sendLedgerRecipients.ledgerId, ids))
    .all();
  const refusals = db
    .select({ ledgerId: relayRefusals.ledgerId, answer: relayRefusals.answer })
    .from(relayRefusals)
    .where(and(eq(relayRefusals.about, "message"), inArray(relayRefusals.ledgerId, ids)))
    .all();
  const hold = relayHold();
  for (const ledger of latest) {
    const own = copies.filter((copy) => copy.ledgerId === ledger.id);
    const refusal = refusals.find((row) => row.ledgerId === ledger.id) ?? null;
    const status =
      ledger.status === "sending"
        ? underWay(own, refusal, hold, timeZone, now)
        : failed(own, refusal, hold, ledger.completedAt ?? now, timeZone);
    if (status) statuses.set(ledger.folderId, status);
  }
  return statuses;
}

/** Send Now's answer while the folder's send is under way: what it waits for. */
export function sendUnderWayMessage(status: SendStatus | undefined) {
  const what = status?.state === "under way" ? status.line : "This folder is being sent";
  return `${what}. ${SEND_UNDER_WAY}`;
}
