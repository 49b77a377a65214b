import { and, eq, ne, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { emailUnsubscribes, folderRecipientStates, folders } from "#db/schema";
import type { Transaction } from "#db/types";
import { recipientsOf } from "~/modules/folders/folders.server";
import { writeTransaction } from "~/platform/db.server";
import { comparableEmail, comparableMailbox, mailboxLikePattern } from "~/platform/email-address";
import { STATUS_RANK } from "./recipient-states.server";

/**
 * Addresses as stored: made canonical (~/platform/email-address), and found
 * under any spelling of the mailbox they deliver to, so `name+tag@…` or a
 * dotted Gmail spelling cannot slip past an opt-out.
 */
const lower = comparableEmail;
const mailboxOf = comparableMailbox;

/** Whether the column's address may be a spelling of the mailbox (a superset: compare keys after). */
export function mayBeSpellingOf(column: SQLiteColumn | SQL, mailbox: string) {
  return sql`lower(trim(${column})) like ${mailboxLikePattern(mailbox)} escape '\\'`;
}

/**
 * Every folder (of any sender) that lists the mailbox, with the address it
 * lists it under: for "everything from Thoughtfully". LIKE narrows the scan
 * to possible spellings; the key decides.
 */
export function foldersListing(tx: Transaction, mailbox: string) {
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
