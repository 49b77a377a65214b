import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { contentItems, folders } from "#db/schema";
import { db } from "~/platform/db.server";
import { missingFileReason } from "./missing-file";
import type { WaitingFor } from "./needs-note";

/**
 * `needsNote` (./needs-note.ts) in SQL, never NULL: a musing, or a ticked
 * comment or question with its text. The send and the Email Preview take
 * only these items; the others wait in the folder.
 */
export const hasItsNote = sql<boolean>`(${contentItems.type} = 'musing'
  or (${contentItems.addComment} = 1 and coalesce(${contentItems.commentText}, '') <> '')
  or (${contentItems.askQuestion} = 1 and coalesce(${contentItems.questionText}, '') <> ''))`;

/**
 * Not a video, or a video prepared (docs/decisions/0207-adding-a-video-from-the-folder.md): a clip still
 * preparing, or refused, waits in the folder like an item without its note.
 */
export const isPrepared = sql<boolean>`(${contentItems.type} <> 'video'
  or coalesce(${contentItems.videoStatus}, '') = 'ready')`;

/** The folder's unsent videos not prepared yet, in the folder's order: what the sender's copy names. */
export function videosNotPrepared(userId: number, folderId: number) {
  return db
    .select({ id: contentItems.id, title: contentItems.title })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(
      and(
        eq(folders.userId, userId),
        eq(contentItems.folderId, folderId),
        isNull(contentItems.sentAt),
        sql`not ${isPrepared}`,
      ),
    )
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
}

/** An unsent item as the rule below reads it: a waiting one is not prepared, lacks a file or a note. */
const waitingColumns = {
  id: contentItems.id,
  title: contentItems.title,
  folderId: contentItems.folderId,
  prepared: isPrepared,
  hasNote: hasItsNote,
  type: contentItems.type,
  filePaths: contentItems.filePaths,
  fileNames: contentItems.fileNames,
  thumbnailPaths: contentItems.thumbnailPaths,
  missingFiles: contentItems.missingFiles,
};

/** What keeps the item out of the next send, most pressing first; null when it goes. */
function waitingFor(item: { prepared: boolean; fileMissing: boolean; hasNote: boolean }) {
  if (!item.prepared) return "video";
  if (item.fileMissing) return "file";
  if (!item.hasNote) return "note";
  return null;
}

/** The user's unsent items the next send leaves behind, in the folder's order, each with what it waits for. */
function waitingItems(userId: number, folderId?: number) {
  const rows = db
    .select(waitingColumns)
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(
      and(
        eq(folders.userId, userId),
        folderId === undefined ? undefined : eq(contentItems.folderId, folderId),
        isNull(contentItems.sentAt),
      ),
    )
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
  return rows.flatMap((row) => {
    const reason: WaitingFor | null = waitingFor({
      prepared: Boolean(row.prepared),
      // As the item's card says it: a file the last send found gone and the item still needs.
      fileMissing: missingFileReason(row) !== null,
      hasNote: Boolean(row.hasNote),
    });
    return reason
      ? [{ id: row.id, title: row.title, folderId: row.folderId, waitingFor: reason }]
      : [];
  });
}

/**
 * The folder's unsent items the next send leaves behind, in the folder's order, each with what
 * it waits for: a video not prepared yet, then a file found missing
 * (docs/decisions/0242-a-missing-file-stays-behind-with-its-item.md), then a note. What Send
 * Now's question, the Email Preview and the sender's copy name; every other unsent item goes.
 */
export function itemsThatWait(userId: number, folderId: number) {
  return waitingItems(userId, folderId).map(({ id, title, waitingFor }) => ({
    id,
    title,
    waitingFor,
  }));
}

/** What waits in each of the user's folders, one reason per waiting item (folders with none are left out). */
export function waitingByFolder(userId: number) {
  const byFolder = new Map<number, WaitingFor[]>();
  for (const item of waitingItems(userId)) {
    byFolder.set(item.folderId, [...(byFolder.get(item.folderId) ?? []), item.waitingFor]);
  }
  return byFolder;
}
