import { and, eq, sql } from "drizzle-orm";
import {
  contentItems,
  emailDeliveries,
  folders,
  sendLedger,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import type { CopySent, SendFinished, SendOpened, SendRecord } from "#db/send-journal";
import type { Transaction } from "#db/types";
import { nextSendAt } from "~/modules/folders/schedule.server";
import { writeTransaction } from "~/platform/db.server";
import { finishLedgerIfDone } from "./sending.server";

/**
 * A restore's replay of the send journal (db/send-journal.ts) into the
 * restored database, so nothing sent since its backup goes again
 * (scripts/db-restore.ts, docs/decisions/0244-a-restore-knows-what-was-sent.md):
 * each send comes back with its id, its recipients' ids and its Message-ID
 * token (the links and Message-IDs of the copies that went out stay its own),
 * the folder's clock moved on as its opening moved it, each accepted copy
 * marked sent, and a send that ended finished as the live one was (its items
 * leave the folder). A send still under way stays so: the next pass sends its
 * other copies, once.
 *
 * Idempotent: a send the database knows (by its token) is not made again, a
 * copy already marked is left, a finished send is not finished again. So a
 * record that was already in the backup, or a restore run twice, changes
 * nothing. One transaction: the replay is whole or not at all.
 */
export type ReplayedSends = {
  /** Sends the backup did not have, made again. */
  sends: number;
  /** Copies marked sent. */
  copies: number;
  /** Sends finished by the replay. */
  finished: number;
  /**
   * Sends not made again: of a folder the backup does not have (made after it, so nothing of
   * theirs can go), or of an occurrence it has another send for.
   */
  skipped: number;
};

export function replaySends(records: SendRecord[]): ReplayedSends {
  const counts: ReplayedSends = { sends: 0, copies: 0, finished: 0, skipped: 0 };
  /** Token → the send's id here; null for a send of a folder not here. */
  const known = new Map<string, number | null>();
  const ledgerOf = (tx: Transaction, token: string) => {
    if (!known.has(token)) {
      const found = tx
        .select({ id: sendLedger.id })
        .from(sendLedger)
        .where(eq(sendLedger.messageToken, token))
        .get();
      if (found) known.set(token, found.id);
    }
    return known.get(token);
  };
  writeTransaction((tx) => {
    for (const record of records) {
      if (record.type === "opened") {
        if (ledgerOf(tx, record.token) !== undefined) continue;
        const id = reopen(tx, record);
        known.set(record.token, id);
        if (id === null) counts.skipped += 1;
        else counts.sends += 1;
        continue;
      }
      const ledgerId = ledgerOf(tx, record.token);
      if (ledgerId === undefined || ledgerId === null) continue;
      if (record.type === "sent") {
        if (markCopy(tx, ledgerId, record)) counts.copies += 1;
      } else if (finish(tx, ledgerId, record)) {
        counts.finished += 1;
      }
    }
  });
  return counts;
}

/** Whether a row of `table` has this id: a send's own ids are kept where they are free. */
function idTaken(
  tx: Transaction,
  table: typeof sendLedger | typeof sendLedgerRecipients,
  id: number,
) {
  return tx.select({ id: table.id }).from(table).where(eq(table.id, id)).get() !== undefined;
}

/** The send as it was opened; null when its folder is not here or its occurrence is taken. */
function reopen(tx: Transaction, record: SendOpened): number | null {
  const folder = tx.select().from(folders).where(eq(folders.id, record.folderId)).get();
  if (!folder) return null;
  // Items saved after the backup are not here; a later item may take their ids.
  const itemIds = tx
    .select({ id: contentItems.id })
    .from(contentItems)
    .where(
      and(
        eq(contentItems.folderId, folder.id),
        sql`${contentItems.id} in (select value from json_each(${JSON.stringify(record.itemIds)}))`,
      ),
    )
    .all()
    .map((item) => item.id);
  const openedAt = new Date(record.openedAt);
  const ledger = tx
    .insert(sendLedger)
    .values({
      ...(idTaken(tx, sendLedger, record.ledgerId) ? {} : { id: record.ledgerId }),
      folderId: folder.id,
      occurrenceKey: record.occurrenceKey,
      trigger: record.trigger,
      status: "sending",
      itemIds,
      tracked: record.tracked,
      issueNote: record.issueNote,
      messageToken: record.token,
      createdAt: openedAt,
    })
    .onConflictDoNothing({ target: [sendLedger.folderId, sendLedger.occurrenceKey] })
    .returning({ id: sendLedger.id })
    .get();
  // The backup has another send for this occurrence: its own record stands.
  if (!ledger) return null;
  for (const recipient of record.recipients) {
    tx.insert(sendLedgerRecipients)
      .values({
        ...(idTaken(tx, sendLedgerRecipients, recipient.id) ? {} : { id: recipient.id }),
        ledgerId: ledger.id,
        email: recipient.email,
        kind: recipient.kind,
      })
      .run();
  }
  if (record.trigger === "schedule") {
    // As the opening did: the occurrence is taken, the folder's clock moves on.
    const sender = tx.select().from(users).where(eq(users.id, folder.userId)).get()!;
    const next = nextSendAt(folder, sender.timeZone, openedAt, folder.lastSentAt);
    if (!folder.nextSendAt || folder.nextSendAt < next) {
      tx.update(folders).set({ nextSendAt: next }).where(eq(folders.id, folder.id)).run();
    }
  }
  return ledger.id;
}

/** A copy of the send still pending: a journal line marks only what the backup did not know. */
function pendingCopy(ledgerId: number, copy: Pick<CopySent, "email" | "kind">) {
  return and(
    eq(sendLedgerRecipients.ledgerId, ledgerId),
    eq(sendLedgerRecipients.email, copy.email),
    eq(sendLedgerRecipients.kind, copy.kind),
    eq(sendLedgerRecipients.status, "pending"),
  );
}

function markCopy(tx: Transaction, ledgerId: number, record: CopySent) {
  const at = new Date(record.at);
  const marked = tx
    .update(sendLedgerRecipients)
    .set({
      status: "sent",
      attempts: sql`${sendLedgerRecipients.attempts} + 1`,
      sentAt: at,
      messageId: record.messageId,
      nextAttemptAt: null,
      lastError: null,
    })
    .where(pendingCopy(ledgerId, record))
    .run();
  if (marked.changes === 0) return false;
  const ledger = tx.select().from(sendLedger).where(eq(sendLedger.id, ledgerId)).get()!;
  tx.insert(emailDeliveries)
    .values({
      folderId: ledger.folderId,
      ledgerId,
      recipientEmail: record.email,
      sentAt: at,
      itemCount: ledger.itemIds.length,
    })
    .run();
  return true;
}

/** Each copy's outcome as the send ended, then the finish itself. */
function finish(tx: Transaction, ledgerId: number, record: SendFinished) {
  for (const recipient of record.recipients) {
    tx.update(sendLedgerRecipients)
      .set({
        status: recipient.status,
        nextAttemptAt: null,
      })
      .where(pendingCopy(ledgerId, recipient))
      .run();
  }
  return finishLedgerIfDone(ledgerId, new Date(record.at)) !== null;
}
