import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { emailUnsubscribes, folderRecipientStates, type Recipient } from "#db/schema";
import type { FolderRecipientState, Transaction } from "#db/types";
import { type Folder, recipientsOf } from "~/modules/folders/folders.server";
import type { db } from "~/platform/db.server";
import { comparableEmail, comparableMailbox } from "~/platform/email-address";

/**
 * The folder_recipient_states rows: one per mailbox and folder, matched on the
 * mailbox an address delivers to (`mailboxKey`,
 * docs/decisions/0110-one-mailbox-one-opt-out.md), read and written by the
 * opt-outs (./opt-outs.server.ts) and the sender's requests (./recipients.server.ts).
 */
export const UNSUBSCRIBE_REASONS = ["unknown", "not_interested", "too_frequent", "other"] as const;
export type UnsubscribeReason = (typeof UNSUBSCRIBE_REASONS)[number];
export type UnsubscribeScope = "folder" | "everything";

type StateRow = FolderRecipientState;

const lower = comparableEmail;
const mailboxOf = comparableMailbox;

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

export const STATUS_RANK = { active: 0, bounced: 1, unsubscribed: 2 } as const;
export const statusRank = sql`case ${folderRecipientStates.status} when 'unsubscribed' then 2 when 'bounced' then 1 else 0 end`;

export function statesOf(executor: Transaction | typeof db, folder: Folder): RecipientState[] {
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

/** The folder's state of the address's mailbox; the opt-out, should two rows share it. */
export function stateRow(tx: Transaction, folderId: number, email: string) {
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
export function writeState(
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
