import { and, asc, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import {
  contentItems,
  folders,
  itemAnswers,
  type Recipient,
  sendLedger,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import { senderFirstName, senderFullName } from "#emails/newsletter";
import { LIMITS } from "~/modules/plans/limits";
import { hasOptedOut } from "~/modules/recipients/opt-outs.server";
import {
  answerLinkCode,
  issueLinkCode,
  readAnswerLinkCode,
  resubscribeToken,
  webVersionUrl,
} from "~/modules/recipients/recipient-links.server";
import { db, writeTransaction } from "~/platform/db.server";

/**
 * Recipients answer back (docs/decisions/0159-recipients-answer-back.md): a
 * heart or a note on one item of the issue they were sent, through a signed
 * link bound to their copy and the item (`answerLinkCode`), with no account.
 * An answer link works while its copy does: the issue was sent to this
 * address as a recipient, its sender has not deleted it, and the address has
 * not left the folder. Nothing a recipient writes is shown to anyone but the
 * sender; what they see of their own answers is only their own.
 */

type Copy = {
  copyId: number;
  email: string;
  ledger: typeof sendLedger.$inferSelect;
  folder: typeof folders.$inferSelect;
  sender: typeof users.$inferSelect;
  item: typeof contentItems.$inferSelect;
};

export type AnswerLinkCheck =
  | { state: "unknown" }
  /** The sender's own copy (cc): answers are for the people they send to. */
  | { state: "own-copy"; folderName: string }
  /** The sender deleted the issue (or the item went with it). */
  | { state: "gone"; folderName: string; senderName: string }
  /** The recipient unsubscribed: no more answers until they come back. */
  | {
      state: "left";
      folderName: string;
      senderName: string;
      resubscribe: { email: string; folder: number; token: string };
    }
  | ({ state: "open" } & Copy);

/** Who a code belongs to and whether it may answer now. */
export function checkAnswerLink(code: string): AnswerLinkCheck {
  const link = readAnswerLinkCode(code);
  if (!link) return { state: "unknown" };
  const row = db
    .select({ copy: sendLedgerRecipients, ledger: sendLedger, folder: folders, sender: users })
    .from(sendLedgerRecipients)
    .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .innerJoin(users, eq(users.id, folders.userId))
    .where(eq(sendLedgerRecipients.id, link.copyId))
    .get();
  if (row?.copy.status !== "sent") return { state: "unknown" };
  if (row.ledger.status !== "sent" && row.ledger.status !== "sending") return { state: "unknown" };
  if (!row.ledger.itemIds.includes(link.itemId)) return { state: "unknown" };
  const folderName = row.folder.name;
  const senderName = senderFullName(row.sender);
  if (row.copy.kind === "cc") return { state: "own-copy", folderName };
  const item = db
    .select()
    .from(contentItems)
    .where(and(eq(contentItems.id, link.itemId), eq(contentItems.folderId, row.folder.id)))
    .get();
  if (row.ledger.deletedAt || !item) return { state: "gone", folderName, senderName };
  if (hasOptedOut(row.folder.id, row.copy.email)) {
    return {
      state: "left",
      folderName,
      senderName,
      resubscribe: {
        email: row.copy.email,
        folder: row.folder.id,
        token: resubscribeToken(row.copy.email, row.folder.id),
      },
    };
  }
  return {
    state: "open",
    copyId: row.copy.id,
    email: row.copy.email,
    ledger: row.ledger,
    folder: row.folder,
    sender: row.sender,
    item,
  };
}

/** What the answer page shows: the item, this recipient's heart and their own notes about it. */
export type AnswerPage =
  | Exclude<AnswerLinkCheck, { state: "open" }>
  | {
      state: "open";
      folderName: string;
      senderName: string;
      senderFirstName: string;
      item: { id: number; title: string };
      hearted: boolean;
      notes: { id: number; body: string; createdAt: Date }[];
      /** Notes this recipient may still write about this issue. */
      notesLeft: number;
      webVersionUrl: string;
    };

/** The row of this copy's heart on this item, if it has one. */
const heartRow = (copyId: number, itemId: number) =>
  and(
    eq(itemAnswers.copyId, copyId),
    eq(itemAnswers.itemId, itemId),
    eq(itemAnswers.kind, "heart"),
  );

function heartOf(copyId: number, itemId: number) {
  return db.select({ id: itemAnswers.id }).from(itemAnswers).where(heartRow(copyId, itemId)).get();
}

function notesByCopy(copyId: number) {
  return (
    db
      .select({ n: count() })
      .from(itemAnswers)
      .where(and(eq(itemAnswers.copyId, copyId), eq(itemAnswers.kind, "note")))
      .get()?.n ?? 0
  );
}

export function answerPage(code: string): AnswerPage {
  const check = checkAnswerLink(code);
  if (check.state !== "open") return check;
  const notes = db
    .select({ id: itemAnswers.id, body: itemAnswers.body, createdAt: itemAnswers.createdAt })
    .from(itemAnswers)
    .where(
      and(
        eq(itemAnswers.copyId, check.copyId),
        eq(itemAnswers.itemId, check.item.id),
        eq(itemAnswers.kind, "note"),
      ),
    )
    .orderBy(itemAnswers.id)
    .all();
  return {
    state: "open",
    folderName: check.folder.name,
    senderName: senderFullName(check.sender),
    senderFirstName: senderFirstName(check.sender),
    item: { id: check.item.id, title: check.item.title },
    hearted: Boolean(heartOf(check.copyId, check.item.id)),
    notes: notes.map((note) => ({ ...note, body: note.body ?? "" })),
    notesLeft: Math.max(0, LIMITS.answers.notesPerRecipientPerIssue - notesByCopy(check.copyId)),
    webVersionUrl: webVersionUrl(check.ledger.id, check.email),
  };
}

/**
 * Sets or takes back this recipient's heart on the item (`hearted` what the
 * page showed when pressed, so a second press of the same button, or a
 * resubmitted form, lands where the person meant); else the link's state.
 */
export function setHeart(
  code: string,
  hearted: boolean,
): AnswerLinkCheck | { state: "done"; hearted: boolean } {
  const check = checkAnswerLink(code);
  if (check.state !== "open") return check;
  writeTransaction((tx) => {
    if (hearted) {
      tx.insert(itemAnswers)
        .values({
          userId: check.sender.id,
          folderId: check.folder.id,
          ledgerId: check.ledger.id,
          copyId: check.copyId,
          itemId: check.item.id,
          email: check.email,
          kind: "heart",
        })
        .onConflictDoNothing()
        .run();
    } else {
      tx.delete(itemAnswers).where(heartRow(check.copyId, check.item.id)).run();
    }
  });
  return { state: "done", hearted };
}

export type NoteRefusal = "recipient-limit" | "issue-limit" | "sender-limit";

/** Why a note was not kept, in words for the page. */
export const NOTE_REFUSALS: Record<NoteRefusal, string> = {
  "recipient-limit": `You have written ${LIMITS.answers.notesPerRecipientPerIssue} notes about this issue, the most one person can. Reply to the e-mail to say more.`,
  "issue-limit":
    "This issue has gathered all the notes it can take. Reply to the e-mail to say more.",
  "sender-limit":
    "Too many notes have been written today. Please try again tomorrow, or reply to the e-mail.",
};

export type WrittenNote =
  | AnswerLinkCheck
  | { state: "refused"; reason: NoteRefusal }
  | { state: "done"; answerId: number; folder: typeof folders.$inferSelect };

/** Keeps a note back (`body` already checked against the form's schema), within the limits. */
export function writeNote(code: string, body: string, now = new Date()): WrittenNote {
  const check = checkAnswerLink(code);
  if (check.state !== "open") return check;
  return writeTransaction((tx): WrittenNote => {
    const countNotes = (where: ReturnType<typeof and>) =>
      tx
        .select({ n: count() })
        .from(itemAnswers)
        .where(and(eq(itemAnswers.kind, "note"), where))
        .get()?.n ?? 0;
    if (
      countNotes(eq(itemAnswers.copyId, check.copyId)) >= LIMITS.answers.notesPerRecipientPerIssue
    ) {
      return { state: "refused", reason: "recipient-limit" };
    }
    if (countNotes(eq(itemAnswers.ledgerId, check.ledger.id)) >= LIMITS.answers.notesPerIssue) {
      return { state: "refused", reason: "issue-limit" };
    }
    const dayAgo = new Date(now.getTime() - 86_400_000);
    const today = countNotes(
      and(eq(itemAnswers.userId, check.sender.id), gt(itemAnswers.createdAt, dayAgo)),
    );
    if (today >= LIMITS.answers.notesPerSenderPerDay) {
      return { state: "refused", reason: "sender-limit" };
    }
    const inserted = tx
      .insert(itemAnswers)
      .values({
        userId: check.sender.id,
        folderId: check.folder.id,
        ledgerId: check.ledger.id,
        copyId: check.copyId,
        itemId: check.item.id,
        email: check.email,
        kind: "note",
        body,
        createdAt: now,
      })
      .returning({ id: itemAnswers.id })
      .get();
    return { state: "done", answerId: inserted.id, folder: check.folder };
  });
}

/**
 * One recipient's answer links and hearts for every item of their copy, for
 * the web version: null when the copy cannot answer (the sender's own copy).
 */
export function answersOfCopy(ledgerId: number, email: string) {
  const copy = db
    .select({ id: sendLedgerRecipients.id })
    .from(sendLedgerRecipients)
    .where(
      and(
        eq(sendLedgerRecipients.ledgerId, ledgerId),
        eq(sendLedgerRecipients.email, email),
        eq(sendLedgerRecipients.kind, "recipient"),
        eq(sendLedgerRecipients.status, "sent"),
      ),
    )
    .get();
  if (!copy) return null;
  const hearted = new Set(
    db
      .select({ itemId: itemAnswers.itemId })
      .from(itemAnswers)
      .where(and(eq(itemAnswers.copyId, copy.id), eq(itemAnswers.kind, "heart")))
      .all()
      .map((row) => row.itemId),
  );
  return {
    codeFor: (itemId: number) => answerLinkCode(copy.id, itemId),
    hearted: (itemId: number) => hearted.has(itemId),
  };
}

/**
 * Where a press made on the web version returns (no JavaScript): that copy's
 * web version, at the item. Built from the code's own copy, so it is always
 * our own path (docs/decisions/0161-answers-on-the-web-version.md); null for
 * a forged code or a copy no longer kept.
 */
export function webVersionPathOfAnswer(code: string) {
  const link = readAnswerLinkCode(code);
  if (!link) return null;
  const copy = db
    .select({ ledgerId: sendLedgerRecipients.ledgerId, email: sendLedgerRecipients.email })
    .from(sendLedgerRecipients)
    .where(eq(sendLedgerRecipients.id, link.copyId))
    .get();
  return copy ? `/v/${issueLinkCode("web", copy.ledgerId, copy.email)}#item-${link.itemId}` : null;
}

/** A recipient's name on the folder's list as it is now, else their address. */
export function nameFor(recipients: Recipient[], email: string) {
  const match = recipients.find((recipient) => recipient.email.toLowerCase() === email);
  return match?.name.trim() || email;
}

export type ItemAnswers = {
  hearts: { email: string; name: string }[];
  notes: { id: number; email: string; name: string; body: string; createdAt: Date }[];
};

/** Every answer to one of the sender's issues, by item id; empty for an issue that is not theirs. */
export function answersOfIssue(userId: number, ledgerId: number): Map<number, ItemAnswers> {
  const rows = db
    .select({ answer: itemAnswers, recipients: folders.recipients })
    .from(itemAnswers)
    .innerJoin(folders, eq(folders.id, itemAnswers.folderId))
    .where(and(eq(itemAnswers.userId, userId), eq(itemAnswers.ledgerId, ledgerId)))
    .orderBy(itemAnswers.id)
    .all();
  const byItem = new Map<number, ItemAnswers>();
  for (const { answer, recipients } of rows) {
    const entry = byItem.get(answer.itemId) ?? { hearts: [], notes: [] };
    const name = nameFor(recipients, answer.email);
    if (answer.kind === "heart") entry.hearts.push({ email: answer.email, name });
    else {
      entry.notes.push({
        id: answer.id,
        email: answer.email,
        name,
        body: answer.body ?? "",
        createdAt: answer.createdAt,
      });
    }
    byItem.set(answer.itemId, entry);
  }
  return byItem;
}

/** Hearts and notes per issue, for a list of the sender's issues. */
export function answerTotals(userId: number, ledgerIds: number[]) {
  const totals = new Map<number, { hearts: number; notes: number }>();
  if (ledgerIds.length === 0) return totals;
  const rows = db
    .select({ ledgerId: itemAnswers.ledgerId, kind: itemAnswers.kind, n: count() })
    .from(itemAnswers)
    .where(and(eq(itemAnswers.userId, userId), inArray(itemAnswers.ledgerId, ledgerIds)))
    .groupBy(itemAnswers.ledgerId, itemAnswers.kind)
    .all();
  for (const row of rows) {
    const entry = totals.get(row.ledgerId) ?? { hearts: 0, notes: 0 };
    if (row.kind === "heart") entry.hearts = row.n;
    else entry.notes = row.n;
    totals.set(row.ledgerId, entry);
  }
  return totals;
}

/** Answers that arrived since the sender last opened the Save tab. */
export function newAnswerCount(userId: number) {
  const seen = db
    .select({ at: users.answersSeenAt })
    .from(users)
    .where(eq(users.id, userId))
    .get()?.at;
  return (
    db
      .select({ n: count() })
      .from(itemAnswers)
      .innerJoin(sendLedger, eq(sendLedger.id, itemAnswers.ledgerId))
      .where(
        and(
          eq(itemAnswers.userId, userId),
          isNull(sendLedger.deletedAt),
          seen ? gt(itemAnswers.createdAt, seen) : undefined,
        ),
      )
      .get()?.n ?? 0
  );
}

/** The sender opened the Save tab: what is there now is no longer new. */
export function markAnswersSeen(userId: number, now = new Date()) {
  db.update(users).set({ answersSeenAt: now }).where(eq(users.id, userId)).run();
}

/**
 * The sender's answers for the API, optionally one folder's: the newest first;
 * or, after an id, the ones that came next, oldest first, so a client walking
 * forward from the last id it has misses none
 * (docs/decisions/0165-answers-api-walks-forward.md).
 */
export function listAnswers(
  userId: number,
  options: { folderId?: number; afterId?: number; limit: number },
) {
  return db
    .select({
      id: itemAnswers.id,
      folderId: itemAnswers.folderId,
      issueId: itemAnswers.ledgerId,
      itemId: itemAnswers.itemId,
      email: itemAnswers.email,
      kind: itemAnswers.kind,
      body: itemAnswers.body,
      createdAt: itemAnswers.createdAt,
    })
    .from(itemAnswers)
    .where(
      and(
        eq(itemAnswers.userId, userId),
        options.folderId === undefined ? undefined : eq(itemAnswers.folderId, options.folderId),
        options.afterId === undefined ? undefined : gt(itemAnswers.id, options.afterId),
      ),
    )
    .orderBy(options.afterId === undefined ? desc(itemAnswers.id) : asc(itemAnswers.id))
    .limit(options.limit)
    .all();
}
