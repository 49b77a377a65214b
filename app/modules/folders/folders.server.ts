import { and, asc, desc, eq, sql } from "drizzle-orm";
import { contentItems, folders, type Recipient, recipientWelcomes, users } from "#db/schema";
import type { Folder, Transaction } from "#db/types";
import { itemFileKeys, releaseFiles } from "~/modules/files/stored-files.server";
import { LIMITS } from "~/modules/plans/limits";
import { canCreateFolder, folderSizeLimit, getUsage } from "~/modules/plans/quota.server";
import { db, prepareOnce, prepareSqlOnce, writeTransaction } from "~/platform/db.server";
import { mailboxKey } from "~/platform/email-address";
import { NotFoundError, RuleError } from "~/platform/errors.server";
import type { FolderFrequency, FolderInput } from "./folder-validation";
import { nextSendAt } from "./schedule.server";

/**
 * Folders: create, edit, pause, reorder, delete. Every query filters by the
 * owner, so another user's folder id behaves exactly like one that does not
 * exist.
 */
export type { Folder };

export class FolderNotFoundError extends NotFoundError {}
export class FolderRuleError extends RuleError {}
/** The account has all the folders its tier allows: Premium would lift the limit. */
export class FolderLimitError extends FolderRuleError {}

export function folderLimitMessage(maxFolders: number) {
  return `Hey there! You've reached your maximum of ${maxFolders} unique folders. Have you tried adding multiple recipients to a single folder yet?`;
}

const foldersOfUser = prepareOnce((database) =>
  database
    .select()
    .from(folders)
    .where(eq(folders.userId, sql.placeholder("userId")))
    .orderBy(asc(folders.sortOrder), asc(folders.id))
    .prepare(),
);

export function listFolders(userId: number): Folder[] {
  return foldersOfUser().all({ userId });
}

export function getFolder(userId: number, folderId: number): Folder {
  const folder = Number.isSafeInteger(folderId)
    ? db
        .select()
        .from(folders)
        .where(and(eq(folders.id, folderId), eq(folders.userId, userId)))
        .get()
    : undefined;
  if (!folder) throw new FolderNotFoundError();
  return folder;
}

/** Recipients as the form shows them: legacy folders keep two e-mails in their own columns. */
export function recipientsOf(folder: Folder) {
  if (folder.recipients.length > 0) return folder.recipients;
  return [folder.recipientEmail, folder.recipientEmail2]
    .filter((email): email is string => Boolean(email))
    .map((email) => ({ name: "recipient", email }));
}

/** The owner's IANA zone: every delivery of their folders is at 00:01 in it. */
export function timeZoneOf(userId: number) {
  return (
    db.select({ timeZone: users.timeZone }).from(users).where(eq(users.id, userId)).get()
      ?.timeZone ?? "UTC"
  );
}

export function allowedFrequencies(userId: number): readonly FolderFrequency[] {
  const usage = getUsage(userId);
  return usage.tier === "premium" ? LIMITS.premium.frequencies : LIMITS.free.frequencies;
}

function scheduleFields(
  userId: number,
  input: FolderInput,
  { lastSentAt, skippedSendAt }: Pick<Folder, "lastSentAt" | "skippedSendAt">,
) {
  if (!allowedFrequencies(userId).includes(input.frequency)) {
    throw new FolderRuleError("Daily and every-two-weeks delivery are Premium features.");
  }
  const timeZone = timeZoneOf(userId);
  const now = new Date();
  const next = nextSendAt({ ...input, skippedSendAt }, timeZone, now, lastSentAt);
  // A skip holds while it still moves the next delivery: a new day or frequency ends it.
  const skipHolds =
    skippedSendAt !== null &&
    next.getTime() !== nextSendAt(input, timeZone, now, lastSentAt).getTime();
  return {
    frequency: input.frequency,
    dayOfWeek: input.dayOfWeek,
    dayOfMonth: input.dayOfMonth,
    nextSendAt: next,
    skippedSendAt: skipHolds ? skippedSendAt : null,
  };
}

/**
 * Claims a welcome for each listed mailbox the folder has not welcomed yet, in
 * the transaction that saves its recipients: a crash keeps both or neither
 * (docs/decisions/0208-a-welcome-before-the-first-issue.md). A mailbox taken
 * off and put back is not welcomed twice, and the sender's own mailbox (listed
 * to see what recipients see) is not welcomed at all. Sending them is the
 * sending domain's (app/modules/sending/welcomes.server.ts).
 */
function claimWelcomes(
  tx: Transaction,
  userId: number,
  folderId: number,
  recipients: readonly Recipient[],
) {
  const owner = tx.select({ email: users.email }).from(users).where(eq(users.id, userId)).get();
  const ownMailbox = owner ? mailboxKey(owner.email) : null;
  for (const recipient of recipients) {
    const mailbox = mailboxKey(recipient.email);
    if (!mailbox || mailbox === ownMailbox) continue;
    tx.insert(recipientWelcomes)
      .values({ folderId, email: recipient.email, mailbox })
      .onConflictDoNothing()
      .run();
  }
}

export function createFolder(userId: number, input: FolderInput): Folder {
  return writeTransaction((tx) => {
    const usage = getUsage(userId);
    if (!canCreateFolder(usage)) {
      throw new FolderLimitError(folderLimitMessage(usage.limits.maxFolders));
    }
    const last = tx
      .select({ sortOrder: folders.sortOrder })
      .from(folders)
      .where(eq(folders.userId, userId))
      .orderBy(desc(folders.sortOrder))
      .get();
    const folder = tx
      .insert(folders)
      .values({
        userId,
        name: input.name,
        recipients: input.recipients,
        ccSender: input.ccSender,
        personalSignoff: input.personalSignoff,
        answerEmails: input.answerEmails,
        sortOrder: (last?.sortOrder ?? -1) + 1,
        ...scheduleFields(userId, input, { lastSentAt: null, skippedSendAt: null }),
      })
      .returning()
      .get();
    claimWelcomes(tx, userId, folder.id, input.recipients);
    return folder;
  });
}

export function updateFolder(userId: number, folderId: number, input: FolderInput): Folder {
  const updated = writeTransaction((tx) => {
    const folder = getFolder(userId, folderId);
    // Only mailboxes added now: those listed before this feature are not welcomed late.
    const listedBefore = new Set(recipientsOf(folder).map((entry) => mailboxKey(entry.email)));
    claimWelcomes(
      tx,
      userId,
      folder.id,
      input.recipients.filter((entry) => !listedBefore.has(mailboxKey(entry.email))),
    );
    return tx
      .update(folders)
      .set({
        name: input.name,
        recipients: input.recipients,
        recipientEmail: null,
        recipientEmail2: null,
        recipientName: null,
        recipientName2: null,
        ccSender: input.ccSender,
        personalSignoff: input.personalSignoff,
        answerEmails: input.answerEmails,
        ...scheduleFields(userId, input, folder),
      })
      .where(and(eq(folders.id, folderId), eq(folders.userId, userId)))
      .returning()
      .get();
  });
  // New recipients can lower the folder's limit (iCloud) below what it holds.
  reconcileStoragePause(updated.id);
  return getFolder(userId, updated.id);
}

/**
 * A folder over its size limit is paused with `storage_exceeded`; once it
 * fits again (files removed) it resumes by itself.
 */
const folderWithTimeZone = prepareOnce((database) =>
  database
    .select({ folder: folders, timeZone: users.timeZone })
    .from(folders)
    .innerJoin(users, eq(users.id, folders.userId))
    .where(eq(folders.id, sql.placeholder("id")))
    .prepare(),
);

export function reconcileStoragePause(folderId: number) {
  writeTransaction((tx) => {
    const row = folderWithTimeZone().get({ id: folderId });
    if (!row) return;
    const { folder, timeZone } = row;
    const over = folderContentSize(folder.id) > folderSizeLimit(recipientsOf(folder));
    if (over && !folder.isPaused) {
      tx.update(folders)
        .set({ isPaused: true, pauseReason: "storage_exceeded" })
        .where(eq(folders.id, folder.id))
        .run();
    } else if (!over && folder.isPaused && folder.pauseReason === "storage_exceeded") {
      tx.update(folders)
        .set({
          isPaused: false,
          pauseReason: null,
          nextSendAt: nextSendAt(folder, timeZone, new Date(), folder.lastSentAt),
        })
        .where(eq(folders.id, folder.id))
        .run();
    }
  });
}

/**
 * Send Now is disabled while a folder is paused (docs/product-rules.md, Folders and items),
 * so removing files is the only way out to offer.
 */
const STORAGE_PAUSE_ADVICE =
  "This folder is paused because it is over its storage limit. Remove files until it fits: delivery then resumes by itself.";

/**
 * Pauses or resumes. A folder paused because it is over its storage limit
 * resumes only once it fits again (files removed).
 */
export function togglePause(userId: number, folderId: number): Folder {
  return writeTransaction((tx) => {
    const folder = getFolder(userId, folderId);
    if (folder.isPaused && folder.pauseReason === "storage_exceeded") {
      const size = folderContentSize(folder.id);
      if (size > folderSizeLimit(recipientsOf(folder))) {
        throw new FolderRuleError(STORAGE_PAUSE_ADVICE);
      }
    }
    const resuming = folder.isPaused;
    return tx
      .update(folders)
      .set({
        isPaused: !resuming,
        pauseReason: resuming ? null : "user",
        nextSendAt: resuming
          ? nextSendAt(folder, timeZoneOf(userId), new Date(), folder.lastSentAt)
          : folder.nextSendAt,
      })
      .where(eq(folders.id, folder.id))
      .returning()
      .get();
  });
}

/** The room an upload to `folder` goes into, for the draft size bar. */
export function uploadCapacity(folder: Folder) {
  return {
    usedBytes: folderContentSize(folder.id),
    limitBytes: folderSizeLimit(recipientsOf(folder)),
    label: "in this folder",
  };
}

/**
 * The bytes the folder's next e-mail carries: its unsent files and link
 * preview pictures (they are sent with the folder, so they count too); a
 * video rides as its poster, a few kilobytes, so its clip does not count. One
 * statement compiled once: the sending pass asks it after every send.
 */
const contentSizeQuery = prepareSqlOnce<{ total: number }>(sql`
  select coalesce((select sum(size.value)
                     from content_items, json_each(content_items.file_sizes) as size
                    where content_items.folder_id = ${sql.placeholder("folderId")}
                      and content_items.sent_at is null
                      and content_items.type != 'video'), 0)
       + coalesce((select sum(preview_image_size) from content_items
                    where folder_id = ${sql.placeholder("folderId")} and sent_at is null), 0)
         as total`);

export function folderContentSize(folderId: number): number {
  return Number(contentSizeQuery.get({ folderId })?.total ?? 0);
}

/** Swaps the folder with its neighbour; the first cannot move up, the last cannot move down. */
export function moveFolder(userId: number, folderId: number, direction: "up" | "down") {
  writeTransaction((tx) => {
    const ordered = listFolders(userId);
    const index = ordered.findIndex((folder) => folder.id === folderId);
    if (index === -1) throw new FolderNotFoundError();
    const target = direction === "up" ? index - 1 : index + 1;
    if (target < 0 || target >= ordered.length) return;
    const ids = ordered.map((folder) => folder.id);
    [ids[index], ids[target]] = [ids[target]!, ids[index]!];
    ids.forEach((id, position) => {
      if (ordered.find((folder) => folder.id === id)?.sortOrder !== position) {
        tx.update(folders).set({ sortOrder: position }).where(eq(folders.id, id)).run();
      }
    });
  });
}

/** Deletes the folder with its items (cascade), then releases their stored files. */
export async function deleteFolder(userId: number, folderId: number) {
  const keys = writeTransaction((tx) => {
    const folder = getFolder(userId, folderId);
    const keys = tx
      .select({
        filePaths: contentItems.filePaths,
        thumbnailPaths: contentItems.thumbnailPaths,
        previewImageKey: contentItems.previewImageKey,
      })
      .from(contentItems)
      .where(eq(contentItems.folderId, folder.id))
      .all()
      .flatMap(itemFileKeys);
    tx.delete(folders).where(eq(folders.id, folder.id)).run();
    return keys;
  });
  await releaseFiles(keys);
}
