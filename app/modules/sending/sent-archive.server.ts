import { and, asc, desc, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import {
  contentItems,
  emailDeliveries,
  folders,
  type Recipient,
  sendLedger,
  sendLedgerRecipients,
} from "#db/schema";
import type { SendLedger, SendLedgerRecipient } from "#db/types";
import { itemFileKeys, releaseFiles } from "~/modules/files/stored-files.server";
import { archiveFileCutoff, SENT_ISSUES_PER_PAGE } from "~/modules/plans/limits";
import { db, writeTransaction } from "~/platform/db.server";

/**
 * The sent archive: every issue a folder sent, read-only, for its sender.
 *
 * An issue is a finished send ledger (status "sent"): its date, the items it
 * carried (content_items rows keep existing once sent, marked `sent_at`, and
 * nothing edits a sent item) and per address what happened, from the
 * ledger's recipient rows. Nothing is copied at send time, so sending stays as
 * it was (one transaction finishes the ledger and marks the items).
 * Photos and files stay stored for ARCHIVE_FILE_RETENTION_DAYS after the send,
 * not counted against storage; then the nightly sweep deletes them and the
 * archive names them only. Deleting the issue, its folder or the account
 * deletes its items and files (the ledger row stays, marked deleted, so the
 * occurrence can never be sent again).
 */

export type RecipientOutcome = "delivered" | "bounced" | "left" | "failed" | "pending";

/** What a ledger recipient's status means to the sender. */
export function outcomeOf(status: SendLedgerRecipient["status"]) {
  const outcomes: Record<typeof status, RecipientOutcome> = {
    sent: "delivered",
    bounced: "bounced",
    skipped: "left",
    failed: "failed",
    pending: "pending",
  };
  return outcomes[status];
}

function ownedFolder(userId: number, folderId: number) {
  return db
    .select({ id: folders.id, name: folders.name, recipients: folders.recipients })
    .from(folders)
    .where(and(eq(folders.id, folderId), eq(folders.userId, userId)))
    .get();
}

/** What ledger rows count as archived issues: finished, not deleted. */
const finished = and(eq(sendLedger.status, "sent"), isNull(sendLedger.deletedAt));

const archived = (folderId: number) => and(eq(sendLedger.folderId, folderId), finished);

/**
 * Recipient names by address, from the folder's recipient list as it is now
 * (the ledger keeps addresses only): an address no longer on the list shows
 * as itself. docs/decisions/0151-archive-issue-pages.md.
 */
function namesByEmail(recipients: Recipient[]) {
  return new Map(
    recipients
      .filter((recipient) => recipient.name.trim())
      .map((recipient) => [recipient.email.toLowerCase(), recipient.name.trim()]),
  );
}

/** One page (1-based) of sent issues matching `where` (which must hold the owner), newest first. */
function archivePage(where: SQL | undefined, requestedPage: number) {
  const total =
    db
      .select({ n: sql<number>`count(*)` })
      .from(sendLedger)
      .innerJoin(folders, eq(folders.id, sendLedger.folderId))
      .where(where)
      .get()?.n ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / SENT_ISSUES_PER_PAGE));
  const page = Math.min(Math.max(1, Math.trunc(requestedPage) || 1), pageCount);
  const rows = db
    .select({ ledger: sendLedger, folderName: folders.name, folderRecipients: folders.recipients })
    .from(sendLedger)
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(where)
    .orderBy(desc(sendLedger.completedAt), desc(sendLedger.id))
    .limit(SENT_ISSUES_PER_PAGE)
    .offset((page - 1) * SENT_ISSUES_PER_PAGE)
    .all();
  const ids = rows.map((row) => row.ledger.id);
  const recipientRows = ids.length
    ? db
        .select({
          ledgerId: sendLedgerRecipients.ledgerId,
          email: sendLedgerRecipients.email,
          status: sendLedgerRecipients.status,
        })
        .from(sendLedgerRecipients)
        .where(
          and(
            inArray(sendLedgerRecipients.ledgerId, ids),
            eq(sendLedgerRecipients.kind, "recipient"),
          ),
        )
        .orderBy(asc(sendLedgerRecipients.id))
        .all()
    : [];
  const engagement = ids.length ? engagementByLedger(ids) : new Map();
  const pictures = firstPictures(rows.map((row) => row.ledger));
  return {
    page,
    pageCount,
    total,
    issues: rows.map(({ ledger, folderName, folderRecipients }) => {
      const outcomes: Record<RecipientOutcome, number> = {
        delivered: 0,
        bounced: 0,
        left: 0,
        failed: 0,
        pending: 0,
      };
      const names = namesByEmail(folderRecipients);
      const recipients: { name: string | null; email: string }[] = [];
      for (const row of recipientRows) {
        if (row.ledgerId !== ledger.id) continue;
        outcomes[outcomeOf(row.status)] += 1;
        recipients.push({ name: names.get(row.email.toLowerCase()) ?? null, email: row.email });
      }
      return {
        id: ledger.id,
        folder: { id: ledger.folderId, name: folderName },
        sentAt: ledger.completedAt ?? ledger.createdAt,
        itemCount: ledger.itemIds.length,
        tracked: ledger.tracked,
        recipients,
        outcomes,
        picture: pictures.get(ledger.id) ?? null,
        engagement: ledger.tracked ? (engagement.get(ledger.id) ?? { opened: 0, clicks: 0 }) : null,
      };
    }),
  };
}

/**
 * Per issue, the first picture it carried while it is still stored: the first
 * photo's thumbnail (else the photo) or a link's preview picture, in the
 * order the e-mail showed the items.
 */
function firstPictures(ledgers: SendLedger[], now = new Date()) {
  const itemIds = ledgers.flatMap((ledger) => ledger.itemIds);
  if (itemIds.length === 0) return new Map<number, { key: string; alt: string }>();
  const items = db
    .select({
      id: contentItems.id,
      folderId: contentItems.folderId,
      type: contentItems.type,
      title: contentItems.title,
      filePaths: contentItems.filePaths,
      thumbnailPaths: contentItems.thumbnailPaths,
      fileNames: contentItems.fileNames,
      previewImageKey: contentItems.previewImageKey,
      previewTitle: contentItems.previewTitle,
      previewStatus: contentItems.previewStatus,
      sentAt: contentItems.sentAt,
    })
    .from(contentItems)
    .where(and(inArray(contentItems.id, itemIds), isNotNull(contentItems.sentAt)))
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all()
    .filter((item) => filesKept(item, now));
  const pictures = new Map<number, { key: string; alt: string }>();
  for (const ledger of ledgers) {
    for (const item of items) {
      if (item.folderId !== ledger.folderId || !ledger.itemIds.includes(item.id)) continue;
      const photoKey = item.type === "photo" ? item.thumbnailPaths[0] || item.filePaths[0] : null;
      if (photoKey) {
        pictures.set(ledger.id, { key: photoKey, alt: item.fileNames[0] ?? item.title });
        break;
      }
      if (item.previewStatus === "ready" && item.previewImageKey) {
        pictures.set(ledger.id, {
          key: item.previewImageKey,
          alt: item.previewTitle ?? item.title,
        });
        break;
      }
    }
  }
  return pictures;
}

/** One page (1-based) of a folder's sent issues, newest first; null when the folder is not the user's. */
export function listSentIssues(userId: number, folderId: number, requestedPage: number) {
  const folder = ownedFolder(userId, folderId);
  if (!folder) return null;
  return {
    folder: { id: folder.id, name: folder.name },
    ...archivePage(archived(folderId), requestedPage),
  };
}

/**
 * The archive (the "Save" view): one page of every issue the user sent, from
 * every folder or from one of theirs (`folderId`), newest first.
 */
export function listArchive(
  userId: number,
  { folderId, page }: { folderId: number | null; page: number },
) {
  return archivePage(
    and(
      eq(folders.userId, userId),
      folderId === null ? undefined : eq(sendLedger.folderId, folderId),
      finished,
    ),
    page,
  );
}

/** The user's folders, by name, for the archive's filter. */
export function archiveFolderChoices(userId: number) {
  return db
    .select({ id: folders.id, name: folders.name })
    .from(folders)
    .where(eq(folders.userId, userId))
    .orderBy(asc(folders.sortOrder), asc(folders.id))
    .all();
}

/** Per issue: how many recipients opened it (estimated) and how many clicks its links had. */
function engagementByLedger(ledgerIds: number[]) {
  const rows = db
    .select({
      ledgerId: emailDeliveries.ledgerId,
      opened: sql<number>`sum(case when ${emailDeliveries.openCount} > 0 then 1 else 0 end)`,
      clicks: sql<number>`coalesce(sum(${emailDeliveries.clickCount}), 0)`,
    })
    .from(emailDeliveries)
    .where(inArray(emailDeliveries.ledgerId, ledgerIds))
    .groupBy(emailDeliveries.ledgerId)
    .all();
  return new Map(
    rows.map((row) => [row.ledgerId, { opened: row.opened ?? 0, clicks: row.clicks ?? 0 }]),
  );
}

/**
 * The items a ledger carried, in the order the e-mail showed them. While it is
 * still sending (a retry pending for someone), they are not marked sent yet.
 */
export function issueItems(ledger: Pick<SendLedger, "folderId" | "itemIds" | "status">) {
  if (ledger.itemIds.length === 0) return [];
  return db
    .select()
    .from(contentItems)
    .where(
      and(
        eq(contentItems.folderId, ledger.folderId),
        inArray(contentItems.id, ledger.itemIds),
        ledger.status === "sending" ? undefined : isNotNull(contentItems.sentAt),
      ),
    )
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
}

/** Whether a sent item's photos and files are still stored (within the archive retention). */
export function filesKept(item: { sentAt: Date | null }, now = new Date()) {
  return item.sentAt !== null && item.sentAt > archiveFileCutoff(now);
}

/** A sent issue with its items and recipients, for its sender only; else null. */
export function getSentIssue(userId: number, folderId: number, ledgerId: number) {
  const folder = ownedFolder(userId, folderId);
  if (!folder) return null;
  const ledger = db
    .select()
    .from(sendLedger)
    .where(and(eq(sendLedger.id, ledgerId), archived(folderId)))
    .get();
  if (!ledger) return null;
  const deliveries = new Map(
    db
      .select()
      .from(emailDeliveries)
      .where(eq(emailDeliveries.ledgerId, ledger.id))
      .all()
      .map((row) => [row.recipientEmail, row]),
  );
  const names = namesByEmail(folder.recipients);
  const recipients = db
    .select()
    .from(sendLedgerRecipients)
    .where(
      and(eq(sendLedgerRecipients.ledgerId, ledger.id), eq(sendLedgerRecipients.kind, "recipient")),
    )
    .orderBy(asc(sendLedgerRecipients.id))
    .all()
    .map((row) => {
      const delivery = deliveries.get(row.email);
      return {
        name: names.get(row.email.toLowerCase()) ?? null,
        email: row.email,
        outcome: outcomeOf(row.status),
        opens: ledger.tracked ? (delivery?.openCount ?? 0) : null,
        clicks: ledger.tracked ? (delivery?.clickCount ?? 0) : null,
      };
    });
  return {
    folder: { id: folder.id, name: folder.name },
    id: ledger.id,
    sentAt: ledger.completedAt ?? ledger.createdAt,
    tracked: ledger.tracked,
    issueNote: ledger.issueNote,
    items: issueItems(ledger),
    recipients,
  };
}

/**
 * Deletes a sent issue for its sender: its items and their files go, its web
 * version stops working. Returns false when it is not theirs (or gone).
 */
export async function deleteSentIssue(userId: number, folderId: number, ledgerId: number) {
  const keys = writeTransaction((tx) => {
    if (!ownedFolder(userId, folderId)) return null;
    const ledger = tx
      .select()
      .from(sendLedger)
      .where(and(eq(sendLedger.id, ledgerId), archived(folderId)))
      .get();
    if (!ledger) return null;
    const items = issueItems(ledger);
    if (items.length > 0) {
      tx.delete(contentItems)
        .where(
          inArray(
            contentItems.id,
            items.map((item) => item.id),
          ),
        )
        .run();
    }
    tx.update(sendLedger).set({ deletedAt: new Date() }).where(eq(sendLedger.id, ledger.id)).run();
    return items.flatMap(itemFileKeys);
  });
  if (keys === null) return false;
  await releaseFiles(keys);
  return true;
}
