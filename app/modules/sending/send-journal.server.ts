import { appendSendRecord, type SendRecord } from "#db/send-journal";
import type { SendLedger, SendLedgerRecipient } from "#db/types";
import { env } from "~/platform/env.server";

/**
 * Each send's record in the send journal (db/send-journal.ts), which a restore
 * from an older backup replays (restored-sends.server.ts): the send before its
 * first copy, each copy the relay accepted, and its end. Each promise settles
 * once the line is on disk.
 */
function journal(record: SendRecord) {
  return appendSendRecord(env.BACKUP_DIR, record);
}

/**
 * A record of what has already happened (a copy accepted, a send ended) that
 * cannot be written is told in the log, never thrown: the send's own record in
 * the database stands, and a restore would only send that copy again.
 */
async function journalOrTell(record: SendRecord) {
  try {
    await journal(record);
  } catch (error) {
    console.error(
      `[send-journal] could not record send ${record.token} (${record.type}); a restore from an older backup would not know it`,
      error,
    );
  }
}

/** Before a delivery's first copy: the send as its ledger holds it. Without it, no copy goes. */
export function journalSendOpened(
  ledger: SendLedger,
  recipients: Pick<SendLedgerRecipient, "id" | "email" | "kind">[],
  now: Date,
) {
  return journal({
    type: "opened",
    at: now.toISOString(),
    token: ledger.messageToken,
    ledgerId: ledger.id,
    folderId: ledger.folderId,
    occurrenceKey: ledger.occurrenceKey,
    trigger: ledger.trigger,
    itemIds: ledger.itemIds,
    tracked: ledger.tracked,
    issueNote: ledger.issueNote,
    openedAt: ledger.createdAt.toISOString(),
    recipients: recipients.map(({ id, email, kind }) => ({ id, email, kind })),
  });
}

export function journalCopySent(
  ledger: SendLedger,
  recipient: Pick<SendLedgerRecipient, "email" | "kind">,
  messageId: string,
  now: Date,
) {
  return journalOrTell({
    type: "sent",
    at: now.toISOString(),
    token: ledger.messageToken,
    email: recipient.email,
    kind: recipient.kind,
    messageId,
  });
}

export function journalSendFinished(
  ledger: SendLedger,
  status: "sent" | "failed",
  recipients: Pick<SendLedgerRecipient, "email" | "kind" | "status">[],
  now: Date,
) {
  return journalOrTell({
    type: "finished",
    at: now.toISOString(),
    token: ledger.messageToken,
    status,
    recipients: recipients.map(({ email, kind, status }) => ({ email, kind, status })),
  });
}
