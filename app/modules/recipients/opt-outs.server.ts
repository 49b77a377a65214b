import { and, desc, eq, sql } from "drizzle-orm";
import {
  emailUnsubscribes,
  folderRecipientStates,
  folders,
  mailboxSuppressions,
  type Recipient,
  resubscribeRefusals,
  sendLedgerRecipients,
  waitingReminders,
} from "#db/schema";
import type { Transaction } from "#db/types";
import { type Folder, recipientsOf } from "~/modules/folders/folders.server";
import { db, prepareSqlOnce, writeTransaction } from "~/platform/db.server";
import { comparableEmail, comparableMailbox, mailboxKey } from "~/platform/email-address";
import { NotFoundError } from "~/platform/errors.server";
import { clientIp, userAgent } from "~/platform/request-info.server";
import { foldersListing } from "./addresses.server";
import { recordRecipientChoice } from "./recipient-choices.server";
import {
  stateRow,
  statesOf,
  type UnsubscribeReason,
  type UnsubscribeScope,
  writeState,
} from "./recipient-states.server";

/**
 * Who still receives a folder. A recipient leaves one folder (a
 * folder_recipient_states row, status unsubscribed) or everything from
 * Thoughtfully (an email_unsubscribes row, plus the folder rows); a permanent
 * delivery failure marks them bounced. Addresses are stored in their
 * canonical form (~/platform/email-address); opt-outs and states
 * are matched on the mailbox an address delivers to (`mailboxKey`: one row
 * per mailbox and folder, docs/decisions/0110-one-mailbox-one-opt-out.md),
 * so `name+tag@…` or a dotted Gmail spelling cannot slip past an opt-out.
 * A folder whose recipients have all unsubscribed is
 * `isUnsubscribed` (shared decisions); bounced recipients do not count as
 * unsubscribed, the sender sees the bounce instead.
 */

/** The link's folder does not exist (any more). */
export class UnknownFolderError extends NotFoundError {}

const lower = comparableEmail;
const mailboxOf = comparableMailbox;

/** Of a folder's mailboxes (a JSON array of keys), those that take no mail from it. */
const blockedMailboxesQuery = prepareSqlOnce<{ mailbox: string }>(sql`
  select ${folderRecipientStates.mailbox} as mailbox from ${folderRecipientStates}
   where ${folderRecipientStates.folderId} = ${sql.placeholder("folderId")}
     and ${folderRecipientStates.status} in ('unsubscribed', 'bounced')
  union
  select ${emailUnsubscribes.mailbox} from ${emailUnsubscribes}
   where ${emailUnsubscribes.mailbox} in (select value from json_each(${sql.placeholder("mailboxes")}))
  union
  select ${mailboxSuppressions.mailbox} from ${mailboxSuppressions}
   where ${mailboxSuppressions.mailbox} in (select value from json_each(${sql.placeholder("mailboxes")}))
     and (${mailboxSuppressions.suppressedUntil} is null or ${mailboxSuppressions.suppressedUntil} > ${sql.placeholder("nowMs")})`);

/**
 * The folder's recipients that get its e-mail: neither unsubscribed nor
 * bounced in this folder, nor unsubscribed from everything, nor suppressed
 * for every sender after a bounce or a complaint
 * (docs/decisions/0121-suppression-by-mailbox.md). One statement, compiled
 * once: the sending pass asks it for every due folder.
 */
export function activeRecipients(folder: Folder, now = new Date()): Recipient[] {
  const recipients = recipientsOf(folder);
  if (recipients.length === 0) return [];
  const mailboxes = [...new Set(recipients.map((recipient) => mailboxOf(recipient.email)))];
  const blocked = new Set(
    blockedMailboxesQuery
      .all({ folderId: folder.id, mailboxes: JSON.stringify(mailboxes), nowMs: now.getTime() })
      .map((row) => row.mailbox),
  );
  return recipients.filter((recipient) => !blocked.has(mailboxOf(recipient.email)));
}

/** Asked before every message: compiled once. */
const optedOutQuery = prepareSqlOnce<{ optedOut: number }>(sql`
    select exists(
        select 1 from ${folderRecipientStates}
          where ${folderRecipientStates.folderId} = ${sql.placeholder("folderId")}
            and ${folderRecipientStates.mailbox} = ${sql.placeholder("mailbox")}
            and ${folderRecipientStates.status} = 'unsubscribed'
      ) or exists(
        select 1 from ${emailUnsubscribes}
          where ${emailUnsubscribes.mailbox} = ${sql.placeholder("mailbox")}
      ) as optedOut`);

/** Asked before every message too: compiled once. Reads the table the deliverability domain writes. */
const suppressedQuery = prepareSqlOnce<{ reason: string }>(sql`
    select 'suppressed: ' || ${mailboxSuppressions.reason} as reason from ${mailboxSuppressions}
     where ${mailboxSuppressions.mailbox} = ${sql.placeholder("mailbox")}
       and (${mailboxSuppressions.suppressedUntil} is null or ${mailboxSuppressions.suppressedUntil} > ${sql.placeholder("nowMs")})`);

/**
 * Whether an address's mailbox left this folder or everything (or the
 * address has no canonical form): it gets no mail from the folder, and no
 * web version or tracking of what it was sent before.
 */
export function hasOptedOut(folderId: number, email: string): boolean {
  const mailbox = mailboxKey(email);
  return !mailbox || optedOutQuery.get({ folderId, mailbox })?.optedOut === 1;
}

/**
 * The send step's last check, made for each message just before it goes out,
 * whatever the folder or the ledger holds: an address with no canonical form,
 * one that left this folder or everything, or one whose mailbox is suppressed
 * after a bounce or a complaint, is not mailed and its ledger row is recorded
 * as skipped (`lastError` says which). Returns true when the message must not be sent.
 * Another bug elsewhere (a spelling that slipped past validation, a stale
 * ledger) cannot reach someone who said stop.
 */
export function skipIfOptedOut(
  folderId: number,
  ledgerRecipient: { id: number; email: string },
  now = new Date(),
): boolean {
  const mailbox = mailboxKey(ledgerRecipient.email);
  const skippedFor = !mailbox
    ? "not a bare address"
    : hasOptedOut(folderId, ledgerRecipient.email)
      ? "opted out"
      : suppressedQuery.get({ mailbox, nowMs: now.getTime() })?.reason;
  if (!skippedFor) return false;
  db.update(sendLedgerRecipients)
    .set({ status: "skipped", lastError: skippedFor })
    .where(eq(sendLedgerRecipients.id, ledgerRecipient.id))
    .run();
  return true;
}

/**
 * Marks the address unsubscribed in one folder; a repeat keeps the first time,
 * a real reason refines "unknown". `left` is null for the folders an opt-out
 * from everything reaches through another sender's link: their rows get
 * neither its date nor its reason (docs/decisions/0045-recipients-privacy.md).
 */
function markUnsubscribed(
  tx: Transaction,
  folderId: number,
  email: string,
  left: { reason: UnsubscribeReason; at: Date } | null,
) {
  const existing = stateRow(tx, folderId, email);
  if (existing?.status === "unsubscribed") {
    if (!left) return;
    const { reason } = left;
    if (reason !== "unknown" && existing.unsubscribeReason !== reason) {
      writeState(tx, folderId, email, { unsubscribeReason: reason });
    }
    return;
  }
  writeState(tx, folderId, email, {
    status: "unsubscribed",
    unsubscribedAt: left?.at ?? null,
    unsubscribeReason: left?.reason ?? null,
  });
}

/**
 * Sets the folder's `isUnsubscribed` from its recipients' states: true when
 * every recipient is unsubscribed, false as soon as one is not. Call it after
 * changing a folder's recipients too. Returns the folder when this call is the
 * one that found its last recipient gone, else null.
 */
export function refreshFolderSubscription(
  folderId: number,
  tx?: Transaction,
  reason: UnsubscribeReason | null = null,
) {
  const run = (executor: Transaction) => {
    const folder = executor.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) return null;
    const states = statesOf(executor, folder);
    const allOut = states.length > 0 && states.every((state) => state.status === "unsubscribed");
    if (allOut === folder.isUnsubscribed) return null;
    const last = executor
      .select({ unsubscribeReason: folderRecipientStates.unsubscribeReason })
      .from(folderRecipientStates)
      .where(
        and(
          eq(folderRecipientStates.folderId, folderId),
          eq(folderRecipientStates.status, "unsubscribed"),
        ),
      )
      .orderBy(desc(folderRecipientStates.unsubscribedAt))
      .get();
    executor
      .update(folders)
      .set(
        allOut
          ? {
              isUnsubscribed: true,
              unsubscribedAt: new Date(),
              unsubscribeReason: reason ?? last?.unsubscribeReason ?? "unknown",
            }
          : { isUnsubscribed: false, unsubscribedAt: null, unsubscribeReason: null },
      )
      .where(eq(folders.id, folderId))
      .run();
    return allOut ? folder : null;
  };
  return tx ? run(tx) : writeTransaction(run);
}

/**
 * The sender of a folder its last recipient just left gets one e-mail about it
 * (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md): a
 * `waiting_reminders` row of kind "left", claimed in the opt-out's own
 * transaction and keyed by the moment the folder lost its last recipient, so
 * a repeated opt-out, a retry or a restart claims nothing more. The reminders'
 * run sends it (app/modules/sending/waiting-reminders.server.ts).
 */
function claimEveryoneLeftNotice(tx: Transaction, folder: Folder, at: Date) {
  return (
    tx
      .insert(waitingReminders)
      .values({
        folderId: folder.id,
        userId: folder.userId,
        occurrenceKey: `left:${at.getTime()}`,
        kind: "left",
        createdAt: at,
      })
      .onConflictDoNothing()
      .run().changes > 0
  );
}

/**
 * The recipient's choice from a signed link. "folder" leaves this folder;
 * "everything" also records the address in email_unsubscribes (with the
 * client's address and browser), which keeps it out of every folder, today's
 * and future ones, and marks it in every folder that lists it now. Repeating
 * it changes nothing. Throws UnknownFolderError when the folder is gone.
 * Returns true when a folder lost its last recipient by it: its sender has a
 * notice waiting (send it soon: `sendOwnerNoticesSoon`).
 */
export function unsubscribe({
  folderId,
  email,
  reason = "unknown",
  scope = "folder",
  request,
}: {
  folderId: number;
  email: string;
  reason?: UnsubscribeReason;
  scope?: UnsubscribeScope;
  request?: Request;
}) {
  const address = lower(email);
  const now = new Date();
  return writeTransaction((tx) => {
    const folder = tx.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) throw new UnknownFolderError();
    recordRecipientChoice({
      at: now,
      choice: "unsubscribe",
      folderId,
      email: address,
      scope,
      reason,
    });
    markUnsubscribed(tx, folder.id, address, { reason, at: now });
    const touched = new Set([folder.id]);
    if (scope === "everything") {
      const mailbox = mailboxOf(address);
      // The first opt-out of the mailbox stands, whatever spelling repeats it.
      if (
        !tx.select().from(emailUnsubscribes).where(eq(emailUnsubscribes.mailbox, mailbox)).get()
      ) {
        tx.insert(emailUnsubscribes)
          .values({
            email: address,
            mailbox,
            unsubscribedAt: now,
            unsubscribeReason: reason,
            folderId: folder.id,
            userId: folder.userId,
            ipAddress: request ? clientIp(request) : null,
            userAgent: request ? userAgent(request) : null,
          })
          .run();
      }
      for (const other of foldersListing(tx, mailbox)) {
        if (other.folder.id !== folder.id) markUnsubscribed(tx, other.folder.id, other.email, null);
        touched.add(other.folder.id);
      }
    }
    let senderTold = false;
    for (const id of touched) {
      const emptied = refreshFolderSubscription(id, tx, id === folder.id ? reason : null);
      // Only the sender whose link was used: other senders learn nothing of when an opt-out
      // from everything was made (docs/decisions/0045-recipients-privacy.md); their folder says it.
      if (emptied && id === folder.id) senderTold = claimEveryoneLeftNotice(tx, emptied, now);
    }
    return senderTold;
  });
}

/**
 * The recipient's own "Re-subscribe" (from a signed link): their mailbox is
 * active again in this folder, and no longer suppressed for anyone. An "everything" opt-out of the mailbox ends
 * too, but the other folders that list it keep it unsubscribed (their rows
 * are written first), so saying yes to one sender does not bring back the
 * others.
 */
export function resubscribe(folderId: number, email: string) {
  const address = lower(email);
  const mailbox = mailboxOf(address);
  writeTransaction((tx) => {
    const folder = tx.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) throw new UnknownFolderError();
    recordRecipientChoice({ at: new Date(), choice: "resubscribe", folderId, email: address });
    const everything = tx
      .select()
      .from(emailUnsubscribes)
      .where(eq(emailUnsubscribes.mailbox, mailbox))
      .get();
    if (everything) {
      for (const other of foldersListing(tx, mailbox)) {
        if (other.folder.id === folder.id) continue;
        const existing = stateRow(tx, other.folder.id, other.email);
        if (!existing || existing.status === "active") {
          // Still out of the other senders' folders, without the opt-out's date or reason.
          writeState(tx, other.folder.id, other.email, {
            status: "unsubscribed",
            unsubscribedAt: null,
            unsubscribeReason: null,
          });
        }
      }
      tx.delete(emailUnsubscribes).where(eq(emailUnsubscribes.mailbox, mailbox)).run();
    }
    writeState(tx, folder.id, address, {
      status: "active",
      unsubscribedAt: null,
      unsubscribeReason: null,
    });
    // Their own click lifts their complaint, and proves a bounced mailbox takes mail again
    // (docs/decisions/0126-suppressions-in-the-senders-words.md).
    tx.delete(mailboxSuppressions).where(eq(mailboxSuppressions.mailbox, mailbox)).run();
    refreshFolderSubscription(folder.id, tx);
  });
}

/**
 * The recipient's "Don't ask me again" (from a signed link): no sender may
 * ever ask this address to re-subscribe. Repeating it changes nothing.
 */
export function refuseResubscribeRequests(email: string) {
  // Journalled like an opt-out: a restore from an older backup reapplies it.
  recordRecipientChoice({ at: new Date(), choice: "refuse-requests", email: lower(email) });
  db.insert(resubscribeRefusals)
    .values({ email: lower(email) })
    .onConflictDoNothing({ target: resubscribeRefusals.email })
    .run();
}

/**
 * A permanent delivery failure (SMTP 5xx) for one recipient: the recipient is
 * bounced in this folder (an unsubscribed one stays unsubscribed) and the
 * folder records the bounce for the sender. For the send engine.
 */
export function markBounced(folderId: number, email: string, reason: string) {
  const address = lower(email);
  const now = new Date();
  writeTransaction((tx) => {
    const existing = stateRow(tx, folderId, address);
    writeState(tx, folderId, address, {
      status: existing?.status === "unsubscribed" ? "unsubscribed" : "bounced",
      bounceCount: (existing?.bounceCount ?? 0) + 1,
      lastBounceAt: now,
      bounceReason: reason,
    });
    tx.update(folders)
      .set({
        bounceCount: sql`${folders.bounceCount} + 1`,
        lastBounceAt: now,
        bounceStatus: "bounced",
        bounceReason: reason,
      })
      .where(eq(folders.id, folderId))
      .run();
  });
}
