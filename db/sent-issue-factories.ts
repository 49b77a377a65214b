import crypto from "node:crypto";
import type { AppDatabase } from "./connection";
import { contentItems, itemAnswers, sendLedger, sendLedgerRecipients } from "./schema";
import type { Transaction } from "./types";

/**
 * A sent issue as a finished send leaves it, and recipients' answers to it,
 * for tests: the items marked sent, the ledger "sent", one delivered copy per
 * address (docs/decisions/0159-recipients-answer-back.md).
 */
type Writer = AppDatabase | Transaction;

export function createSentIssue(
  database: Writer,
  folderId: number,
  { titles, emails, sentAt = new Date() }: { titles: string[]; emails: string[]; sentAt?: Date },
) {
  const items = database
    .insert(contentItems)
    .values(
      titles.map((title, index) => ({
        folderId,
        type: "musing" as const,
        title,
        note: `About ${title}`,
        sentAt,
        sortOrder: index,
      })),
    )
    .returning()
    .all();
  const { ledger, copies } = createSentLedger(database, folderId, {
    itemIds: items.map((item) => item.id),
    copies: emails.map((email) => ({ email })),
    sentAt,
  });
  return { ledger, items, copies };
}

/**
 * The send ledger of items already marked sent: "sent", with one copy per
 * recipient, delivered unless its status says otherwise.
 */
export function createSentLedger(
  database: Writer,
  folderId: number,
  {
    itemIds,
    copies,
    sentAt = new Date(),
  }: {
    itemIds: number[];
    copies: { email: string; status?: "sent" | "skipped" | "failed" }[];
    sentAt?: Date;
  },
) {
  const ledger = database
    .insert(sendLedger)
    .values({
      folderId,
      occurrenceKey: `send-now:${crypto.randomUUID()}`,
      trigger: "send_now",
      status: "sent",
      itemIds,
      completedAt: sentAt,
    })
    .returning()
    .get();
  const rows = database
    .insert(sendLedgerRecipients)
    .values(
      copies.map(({ email, status = "sent" }) => ({
        ledgerId: ledger.id,
        email,
        status,
        sentAt: status === "sent" ? sentAt : null,
      })),
    )
    .returning()
    .all();
  return { ledger, copies: rows };
}

/** A heart (no `body`) or a note from the copy's recipient on one item of its issue. */
export function createAnswer(
  database: Writer,
  {
    userId,
    folderId,
    copy,
    itemId,
    body,
    createdAt = new Date(),
  }: {
    userId: number;
    folderId: number;
    copy: { id: number; ledgerId: number; email: string };
    itemId: number;
    body?: string;
    createdAt?: Date;
  },
) {
  return database
    .insert(itemAnswers)
    .values({
      userId,
      folderId,
      ledgerId: copy.ledgerId,
      copyId: copy.id,
      itemId,
      email: copy.email,
      kind: body === undefined ? "heart" : "note",
      body: body ?? null,
      createdAt,
    })
    .returning()
    .get();
}
