import { and, desc, eq, gt, inArray, ne, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { createElement } from "react";
import {
  emailUnsubscribes,
  folderRecipientStates,
  folders,
  mailboxSuppressions,
  type Recipient,
  resubscribeRefusals,
  resubscribeRequests,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import type { FolderRecipientState, Transaction } from "#db/types";
import { KeepGetting, keepGettingSubject } from "#emails/keep-getting";
import { renderEmail } from "#emails/render.server";
import { ResubscribeRequest, resubscribeRequestSubject } from "#emails/resubscribe-request";
import { type Folder, getFolder, recipientsOf } from "~/modules/folders/folders.server";
import { formatDay } from "~/platform/dates";
import { db, prepareSqlOnce, writeTransaction } from "~/platform/db.server";
import {
  comparableEmail,
  comparableMailbox,
  mailboxKey,
  mailboxLikePattern,
} from "~/platform/email-address";
import { NotFoundError, RuleError } from "~/platform/errors.server";
import { sendEmail } from "~/platform/mailer.server";
import { clientIp, userAgent } from "~/platform/request-info.server";
import type { MissedRecipient } from "./next-issue-line";
import { recordRecipientChoice } from "./recipient-choices.server";
import { dontAskAgainUrl, resubscribeUrl } from "./recipient-links.server";

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
export const UNSUBSCRIBE_REASONS = ["unknown", "not_interested", "too_frequent", "other"] as const;
export type UnsubscribeReason = (typeof UNSUBSCRIBE_REASONS)[number];
export type UnsubscribeScope = "folder" | "everything";

export const RESUBSCRIBE_REQUEST_INTERVAL_MS = 30 * 24 * 60 * 60 * 1000;
/** Requests one address may get from all senders together per 30 days (docs/decisions/0043-re-subscribe-requests.md). */
export const RESUBSCRIBE_REQUESTS_PER_ADDRESS = 3;

/** A rule the caller broke; its message is meant for the sender. */
export class RecipientRuleError extends RuleError {}
/** The link's folder does not exist (any more). */
export class UnknownFolderError extends NotFoundError {}

type StateRow = FolderRecipientState;

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
 * What a sender may know about one recipient
 * (docs/decisions/0045-recipients-privacy.md): that they left this folder and when, never why. An address that
 * left everything through another sender's folder shows only that it takes
 * no mail through Thoughtfully: no date, no reason.
 */
export type RecipientState = {
  name: string;
  email: string;
  status: "active" | "unsubscribed" | "bounced";
  /** "everything" when the address takes no mail sent through Thoughtfully. */
  scope: UnsubscribeScope | null;
  /** When they left this folder; null for an opt-out from everything made elsewhere. */
  unsubscribedAt: Date | null;
  bounceCount: number;
  lastBounceAt: Date | null;
  bounceReason: string | null;
  resubscribeRequestedAt: Date | null;
};

function stateOf(
  folderId: number,
  recipient: Recipient,
  row: StateRow | undefined,
  everything: typeof emailUnsubscribes.$inferSelect | undefined,
): RecipientState {
  const unsubscribed = row?.status === "unsubscribed" || Boolean(everything);
  // Rows an opt-out from everything wrote into other senders' folders before issue 16 carry its date.
  const leftElsewhere =
    everything !== undefined &&
    everything.folderId !== folderId &&
    (!row?.unsubscribedAt || row.unsubscribedAt.getTime() >= everything.unsubscribedAt.getTime());
  return {
    name: recipient.name,
    email: lower(recipient.email),
    status: unsubscribed ? "unsubscribed" : (row?.status ?? "active"),
    scope: everything ? "everything" : unsubscribed ? "folder" : null,
    unsubscribedAt:
      row?.status === "unsubscribed" && !leftElsewhere ? (row.unsubscribedAt ?? null) : null,
    bounceCount: row?.bounceCount ?? 0,
    lastBounceAt: row?.lastBounceAt ?? null,
    bounceReason: row?.bounceReason ?? null,
    resubscribeRequestedAt: row?.resubscribeRequestedAt ?? null,
  };
}

const STATUS_RANK = { active: 0, bounced: 1, unsubscribed: 2 } as const;
const statusRank = sql`case ${folderRecipientStates.status} when 'unsubscribed' then 2 when 'bounced' then 1 else 0 end`;

function statesOf(executor: Transaction | typeof db, folder: Folder): RecipientState[] {
  const recipients = recipientsOf(folder);
  if (recipients.length === 0) return [];
  const rows = new Map<string, StateRow>();
  // Weakest first, so where two rows share a mailbox the opt-out is the one kept.
  for (const row of executor
    .select()
    .from(folderRecipientStates)
    .where(eq(folderRecipientStates.folderId, folder.id))
    .orderBy(statusRank)
    .all()) {
    rows.set(row.mailbox, row);
  }
  const everything = new Map(
    executor
      .select()
      .from(emailUnsubscribes)
      .where(
        inArray(
          emailUnsubscribes.mailbox,
          recipients.map((recipient) => mailboxOf(recipient.email)),
        ),
      )
      .all()
      .map((row) => [row.mailbox, row]),
  );
  return recipients.map((recipient) =>
    stateOf(
      folder.id,
      recipient,
      rows.get(mailboxOf(recipient.email)),
      everything.get(mailboxOf(recipient.email)),
    ),
  );
}

/** Every recipient of the folder with their status, for the sender's Recipients dialog. */
export function recipientStates(folderId: number): RecipientState[] {
  const folder = db.select().from(folders).where(eq(folders.id, folderId)).get();
  return folder ? statesOf(db, folder) : [];
}

const unsubscribedInFoldersQuery = prepareSqlOnce<{ folderId: number; mailbox: string }>(sql`
  select ${folderRecipientStates.folderId} as folderId, ${folderRecipientStates.mailbox} as mailbox
    from ${folderRecipientStates}
   where ${folderRecipientStates.folderId} in (select value from json_each(${sql.placeholder("folderIds")}))
     and ${folderRecipientStates.status} = 'unsubscribed'`);

const leftEverythingQuery = prepareSqlOnce<{ mailbox: string }>(sql`
  select ${emailUnsubscribes.mailbox} as mailbox from ${emailUnsubscribes}
   where ${emailUnsubscribes.mailbox} in (select value from json_each(${sql.placeholder("mailboxes")}))`);

/**
 * For each of the given folders (one sender's), how many of its recipients
 * are unsubscribed (from the folder or from everything): two queries for all
 * folders together. Folders with none are left out.
 */
export function unsubscribedCounts(senderFolders: Folder[]): Map<number, number> {
  // Each listed address once per folder (stored canonical: lower case is enough), as its mailbox.
  const listed = senderFolders.map((folder) => ({
    id: folder.id,
    mailboxes: [
      ...new Set(recipientsOf(folder).map((recipient) => recipient.email.trim().toLowerCase())),
    ].map(mailboxOf),
  }));
  const mailboxes = [...new Set(listed.flatMap((folder) => folder.mailboxes))];
  if (mailboxes.length === 0) return new Map();
  const everything = new Set(
    leftEverythingQuery.all({ mailboxes: JSON.stringify(mailboxes) }).map((row) => row.mailbox),
  );
  const leftFolder = new Set(
    unsubscribedInFoldersQuery
      .all({ folderIds: JSON.stringify(listed.map((folder) => folder.id)) })
      .map((row) => `${row.folderId} ${row.mailbox}`),
  );
  const counts = new Map<number, number>();
  for (const folder of listed) {
    const count = folder.mailboxes.filter(
      (mailbox) => everything.has(mailbox) || leftFolder.has(`${folder.id} ${mailbox}`),
    ).length;
    if (count > 0) counts.set(folder.id, count);
  }
  return counts;
}

/** Whether the column's address may be a spelling of the mailbox (a superset: compare keys after). */
function mayBeSpellingOf(column: SQLiteColumn | SQL, mailbox: string) {
  return sql`lower(trim(${column})) like ${mailboxLikePattern(mailbox)} escape '\\'`;
}

/**
 * Every folder (of any sender) that lists the mailbox, with the address it
 * lists it under: for "everything from Thoughtfully". LIKE narrows the scan
 * to possible spellings; the key decides.
 */
function foldersListing(tx: Transaction, mailbox: string) {
  const spelling = (column: SQLiteColumn | SQL) => mayBeSpellingOf(column, mailbox);
  return tx
    .select()
    .from(folders)
    .where(
      sql`exists (select 1 from json_each(${folders.recipients}) r
                   where ${spelling(sql`json_extract(r.value, '$.email')`)})
          or (json_array_length(${folders.recipients}) = 0
              and (${spelling(folders.recipientEmail)} or ${spelling(folders.recipientEmail2)}))`,
    )
    .all()
    .flatMap((folder) => {
      const listed = recipientsOf(folder).find(
        (recipient) => mailboxOf(recipient.email) === mailbox,
      );
      return listed ? [{ folder, email: lower(listed.email) }] : [];
    });
}

/** The folder's state of the address's mailbox; the opt-out, should two rows share it. */
function stateRow(tx: Transaction, folderId: number, email: string) {
  return tx
    .select()
    .from(folderRecipientStates)
    .where(
      and(
        eq(folderRecipientStates.folderId, folderId),
        eq(folderRecipientStates.mailbox, mailboxOf(email)),
      ),
    )
    .orderBy(desc(statusRank))
    .get();
}

/** Sets the state of the address's mailbox in the folder: a new row under this spelling, or every row the mailbox has. */
function writeState(
  tx: Transaction,
  folderId: number,
  email: string,
  values: Partial<
    Omit<typeof folderRecipientStates.$inferInsert, "id" | "folderId" | "email" | "mailbox">
  >,
) {
  const mailbox = mailboxOf(email);
  const { changes } = tx
    .update(folderRecipientStates)
    .set({ ...values, updatedAt: new Date() })
    .where(
      and(eq(folderRecipientStates.folderId, folderId), eq(folderRecipientStates.mailbox, mailbox)),
    )
    .run();
  if (changes === 0)
    tx.insert(folderRecipientStates)
      .values({ folderId, email, mailbox, ...values })
      .run();
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
 * changing a folder's recipients too.
 */
export function refreshFolderSubscription(
  folderId: number,
  tx?: Transaction,
  reason: UnsubscribeReason | null = null,
) {
  const run = (executor: Transaction) => {
    const folder = executor.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) return;
    const states = statesOf(executor, folder);
    const allOut = states.length > 0 && states.every((state) => state.status === "unsubscribed");
    if (allOut === folder.isUnsubscribed) return;
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
  };
  if (tx) run(tx);
  else writeTransaction(run);
}

/**
 * The recipient's choice from a signed link. "folder" leaves this folder;
 * "everything" also records the address in email_unsubscribes (with the
 * client's address and browser), which keeps it out of every folder, today's
 * and future ones, and marks it in every folder that lists it now. Repeating
 * it changes nothing. Throws UnknownFolderError when the folder is gone.
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
  writeTransaction((tx) => {
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
    for (const id of touched) refreshFolderSubscription(id, tx, id === folder.id ? reason : null);
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

function senderNameOf(user: { firstName: string | null; lastName: string | null; email: string }) {
  return [user.firstName, user.lastName].filter(Boolean).join(" ").trim() || user.email;
}

/** The sender's name and the folder's name, for the recipient's pages. */
export function folderForRecipient(folderId: number) {
  const row = db
    .select({
      id: folders.id,
      name: folders.name,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
    })
    .from(folders)
    .innerJoin(users, eq(users.id, folders.userId))
    .where(eq(folders.id, folderId))
    .get();
  return row ? { folderId: row.id, folderName: row.name, senderName: senderNameOf(row) } : null;
}

/**
 * After a bounce, the sender may ask once whether the recipient would like to
 * keep getting the folder (docs/decisions/0211-one-way-back-after-a-bounce.md):
 * only a mailbox that bounced (in this folder, or suppressed after a bounce),
 * never one that complained or left. Throws RecipientRuleError otherwise.
 */
function refuseAskingAfterBounce(
  tx: Transaction,
  state: RecipientState | undefined,
  shown: string,
  mailbox: string,
) {
  const suppression = tx
    .select({ reason: mailboxSuppressions.reason })
    .from(mailboxSuppressions)
    .where(eq(mailboxSuppressions.mailbox, mailbox))
    .get();
  if (suppression?.reason === "complaint") {
    throw new RecipientRuleError(
      `${shown} reported mail as spam: Thoughtfully never asks again after a complaint.`,
    );
  }
  if (state?.status === "unsubscribed") {
    throw new RecipientRuleError(`${shown} unsubscribed: request a re-subscription instead.`);
  }
  if (state?.status !== "bounced" && !suppression) {
    throw new RecipientRuleError(`Mail to ${shown} has not bounced.`);
  }
}

/** The listed addresses the sender may ask after a bounce (the Recipients dialog's buttons). */
export function askableAfterBounce(folderId: number): Set<string> {
  const folder = db.select().from(folders).where(eq(folders.id, folderId)).get();
  if (!folder) return new Set();
  const [reach] = nextIssueReach([folder]).values();
  return new Set(
    (reach?.missing ?? [])
      .filter((recipient) => recipient.because === "bounced")
      .map((recipient) => recipient.email),
  );
}

/**
 * The sender asks an unsubscribed recipient back: one e-mail with a signed
 * /resubscribe link. Only a verified sender may ask; at most once per 30 days
 * per sender and address, RESUBSCRIBE_REQUESTS_PER_ADDRESS per 30 days per
 * address from all senders, and never an address that said "don't ask me again".
 * Throws FolderNotFoundError for a folder that is not the user's and
 * RecipientRuleError (message for the sender) when the rules say no. When the
 * e-mail cannot be sent the request is not counted.
 */
export async function requestResubscription(
  userId: number,
  folderId: number,
  email: string,
  after: "unsubscribe" | "bounce" = "unsubscribe",
) {
  const folder = getFolder(userId, folderId);
  const address = lower(email);
  const mailbox = mailboxOf(address);
  const recipient = recipientsOf(folder).find((entry) => lower(entry.email) === address);
  if (!recipient) throw new RecipientRuleError(`${email} is not a recipient of this folder.`);
  const sender = db.select().from(users).where(eq(users.id, userId)).get()!;
  if (!sender.emailVerified) {
    throw new RecipientRuleError(
      "Please confirm your email address before asking anyone to re-subscribe.",
    );
  }
  const now = new Date();
  const windowStart = new Date(now.getTime() - RESUBSCRIBE_REQUEST_INTERVAL_MS);
  const { previous, requestId } = writeTransaction((tx) => {
    const state = statesOf(tx, folder).find((entry) => entry.email === address);
    if (after === "bounce") {
      refuseAskingAfterBounce(tx, state, recipient.email, mailbox);
    } else if (state?.status !== "unsubscribed") {
      throw new RecipientRuleError(`${recipient.email} has not unsubscribed from this folder.`);
    }
    // Refusals and requests count per mailbox: another spelling asks the same person.
    const refused = tx
      .select({ email: resubscribeRefusals.email })
      .from(resubscribeRefusals)
      .where(mayBeSpellingOf(resubscribeRefusals.email, mailbox))
      .all()
      .some((row) => mailboxOf(row.email) === mailbox);
    if (refused) {
      throw new RecipientRuleError(`${recipient.email} has asked not to be asked again.`);
    }
    const recentForMailbox = tx
      .select({
        senderUserId: resubscribeRequests.senderUserId,
        email: resubscribeRequests.email,
        requestedAt: resubscribeRequests.requestedAt,
      })
      .from(resubscribeRequests)
      .where(
        and(
          mayBeSpellingOf(resubscribeRequests.email, mailbox),
          gt(resubscribeRequests.requestedAt, windowStart),
        ),
      )
      .orderBy(desc(resubscribeRequests.requestedAt))
      .all()
      .filter((row) => mailboxOf(row.email) === mailbox);
    // Per sender and mailbox, in a record that outlives folders: recreating one resets nothing.
    const last = recentForMailbox.find((row) => row.senderUserId === userId)?.requestedAt;
    if (last) {
      const next = new Date(last.getTime() + RESUBSCRIBE_REQUEST_INTERVAL_MS);
      throw new RecipientRuleError(
        `You already asked ${recipient.email} to re-subscribe on ${formatDay(last, sender.timeZone)}. You can ask once every 30 days: next on ${formatDay(next, sender.timeZone)}.`,
      );
    }
    if (recentForMailbox.length >= RESUBSCRIBE_REQUESTS_PER_ADDRESS) {
      throw new RecipientRuleError(
        `${recipient.email} has been asked to re-subscribe several times recently. Please try again next month.`,
      );
    }
    const request = tx
      .insert(resubscribeRequests)
      .values({ senderUserId: userId, email: address, folderId: folder.id, requestedAt: now })
      .returning({ id: resubscribeRequests.id })
      .get();
    const existing = stateRow(tx, folder.id, address);
    writeState(tx, folder.id, address, {
      resubscribeRequestedAt: now,
      // Only unsubscribed from everything so far: the folder row records the request.
      // A bounced mailbox stays bounced: only its own "Keep getting it" starts mail again.
      ...(existing?.status === "unsubscribed" || after === "bounce"
        ? {}
        : {
            status: "unsubscribed" as const,
            unsubscribedAt: state?.unsubscribedAt ?? null,
            unsubscribeReason: "unknown",
          }),
    });
    return { previous: state?.resubscribeRequestedAt ?? null, requestId: request.id };
  });
  const senderName = senderNameOf(sender);
  const content = {
    senderName,
    senderEmail: sender.email,
    folderName: folder.name,
    resubscribeUrl: resubscribeUrl(address, folder.id),
    dontAskAgainUrl: dontAskAgainUrl(address),
  };
  const { html, text } = renderEmail(
    after === "bounce"
      ? createElement(KeepGetting, content)
      : createElement(ResubscribeRequest, content),
  );
  try {
    await sendEmail({
      to: address,
      subject:
        after === "bounce"
          ? keepGettingSubject(folder.name)
          : resubscribeRequestSubject(senderName, folder.name),
      html,
      text,
      replyTo: sender.email,
    });
  } catch (error) {
    writeTransaction((tx) => {
      writeState(tx, folder.id, address, { resubscribeRequestedAt: previous });
      tx.delete(resubscribeRequests).where(eq(resubscribeRequests.id, requestId)).run();
    });
    throw error;
  }
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

const hasNonAscii = (column: SQLiteColumn) => sql`${column} glob '*[^ -~]*'`;

/**
 * Migration 0004 made the stored addresses canonical in SQL, except domains
 * with non-ASCII letters, which need IDNA, and migration 0012 keyed the
 * opt-outs by mailbox from those forms: this rewrites the rest, and keys a row
 * that has no mailbox yet, at every start (it finds nothing once done). Where
 * two spellings of one mailbox meet, the opt-out wins, as in the migrations.
 */
export function canonicalizeStoredAddresses() {
  writeTransaction((tx) => {
    for (const row of tx
      .select()
      .from(emailUnsubscribes)
      .where(or(hasNonAscii(emailUnsubscribes.email), eq(emailUnsubscribes.mailbox, "")))
      .all()) {
      const email = lower(row.email);
      const mailbox = mailboxOf(email);
      if (email === row.email && mailbox === row.mailbox) continue;
      const kept = tx
        .select()
        .from(emailUnsubscribes)
        .where(
          and(
            ne(emailUnsubscribes.id, row.id),
            or(eq(emailUnsubscribes.mailbox, mailbox), eq(emailUnsubscribes.email, email)),
          ),
        )
        .get();
      if (kept) tx.delete(emailUnsubscribes).where(eq(emailUnsubscribes.id, row.id)).run();
      else
        tx.update(emailUnsubscribes)
          .set({ email, mailbox })
          .where(eq(emailUnsubscribes.id, row.id))
          .run();
    }
    for (const row of tx
      .select()
      .from(folderRecipientStates)
      .where(or(hasNonAscii(folderRecipientStates.email), eq(folderRecipientStates.mailbox, "")))
      .all()) {
      const email = lower(row.email);
      const mailbox = mailboxOf(email);
      if (email === row.email && mailbox === row.mailbox) continue;
      const others = tx
        .select()
        .from(folderRecipientStates)
        .where(
          and(
            eq(folderRecipientStates.folderId, row.folderId),
            ne(folderRecipientStates.id, row.id),
            or(eq(folderRecipientStates.mailbox, mailbox), eq(folderRecipientStates.email, email)),
          ),
        )
        .all();
      if (others.some((other) => STATUS_RANK[other.status] >= STATUS_RANK[row.status])) {
        tx.delete(folderRecipientStates).where(eq(folderRecipientStates.id, row.id)).run();
        continue;
      }
      for (const other of others) {
        tx.delete(folderRecipientStates).where(eq(folderRecipientStates.id, other.id)).run();
      }
      tx.update(folderRecipientStates)
        .set({ email, mailbox })
        .where(eq(folderRecipientStates.id, row.id))
        .run();
    }
    for (const folder of tx
      .select()
      .from(folders)
      .where(
        or(
          hasNonAscii(folders.recipients),
          hasNonAscii(folders.recipientEmail),
          hasNonAscii(folders.recipientEmail2),
        ),
      )
      .all()) {
      tx.update(folders)
        .set({
          recipients: folder.recipients.map((recipient) => ({
            name: recipient.name,
            email: lower(recipient.email),
          })),
          recipientEmail: folder.recipientEmail === null ? null : lower(folder.recipientEmail),
          recipientEmail2: folder.recipientEmail2 === null ? null : lower(folder.recipientEmail2),
        })
        .where(eq(folders.id, folder.id))
        .run();
    }
  });
}

export type NextIssueReach = {
  listed: number;
  /** How many will get the next issue. */
  reaching: number;
  missing: MissedRecipient[];
};

/**
 * For each of one sender's folders, who of its listed recipients will get
 * the next issue, and why the others will not
 * (docs/decisions/0210-counts-that-are-true.md): an opt-out (this folder or
 * everything), a complaint, or a bounce (in this folder, or a suppression
 * after a bounce anywhere). Three queries for all folders together, as the
 * send's own check reads them (`activeRecipients`).
 */
export function nextIssueReach(senderFolders: Folder[], now = new Date()) {
  const listed = senderFolders.map((folder) => ({ folder, recipients: recipientsOf(folder) }));
  const mailboxes = [
    ...new Set(
      listed.flatMap(({ recipients }) => recipients.map((entry) => mailboxOf(entry.email))),
    ),
  ];
  const folderIds = senderFolders.map((folder) => folder.id);
  const states = new Map(
    (folderIds.length === 0
      ? []
      : db
          .select()
          .from(folderRecipientStates)
          .where(
            and(
              inArray(folderRecipientStates.folderId, folderIds),
              inArray(folderRecipientStates.status, ["unsubscribed", "bounced"]),
            ),
          )
          .orderBy(statusRank)
          .all()
    ).map((row) => [`${row.folderId} ${row.mailbox}`, row.status]),
  );
  const everything = new Set(
    mailboxes.length === 0
      ? []
      : leftEverythingQuery.all({ mailboxes: JSON.stringify(mailboxes) }).map((row) => row.mailbox),
  );
  const suppressed = new Map(
    (mailboxes.length === 0
      ? []
      : db
          .select()
          .from(mailboxSuppressions)
          .where(
            and(
              inArray(mailboxSuppressions.mailbox, mailboxes),
              or(
                sql`${mailboxSuppressions.suppressedUntil} is null`,
                gt(mailboxSuppressions.suppressedUntil, now),
              ),
            ),
          )
          .all()
    ).map((row) => [row.mailbox, row.reason]),
  );
  const reach = new Map<number, NextIssueReach>();
  for (const { folder, recipients } of listed) {
    const missing: NextIssueReach["missing"] = [];
    for (const recipient of recipients) {
      const mailbox = mailboxOf(recipient.email);
      const state = states.get(`${folder.id} ${mailbox}`);
      const suppression = suppressed.get(mailbox);
      const because: MissedRecipient["because"] | null =
        state === "unsubscribed" || everything.has(mailbox)
          ? "unsubscribed"
          : suppression === "complaint"
            ? "complaint"
            : state === "bounced" || suppression
              ? "bounced"
              : null;
      if (because) missing.push({ name: recipient.name, email: lower(recipient.email), because });
    }
    reach.set(folder.id, {
      listed: recipients.length,
      reaching: recipients.length - missing.length,
      missing,
    });
  }
  return reach;
}
