import { and, eq, gt, lte } from "drizzle-orm";
import { contentItems, deletedItems } from "#db/schema";
import { itemFileKeys, releaseFiles } from "~/modules/files/stored-files.server";
import { reconcileStoragePause } from "~/modules/folders/folders.server";
import { db, writeTransaction } from "~/platform/db.server";
import { getItem } from "./item-rules.server";
import type { Item } from "./items.server";

/**
 * Deleting an item can be undone for a while: the row moves whole into
 * deleted_items and its files stay stored; Undo moves it back. Once the
 * window has passed the row goes and its files are released.
 */
export const UNDO_WINDOW_MS = 10 * 60 * 1000;

/** Deletes the user's unsent item, keeping it for Undo. Throws ItemNotFoundError for another's. */
export function deleteItemUndoably(userId: number, itemId: number, now = new Date()) {
  const item = writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    tx.insert(deletedItems)
      .values({
        itemId: item.id,
        userId,
        folderId: item.folderId,
        item,
        fileKeys: itemFileKeys(item),
        deletedAt: now,
      })
      .onConflictDoNothing()
      .run();
    tx.delete(contentItems).where(eq(contentItems.id, item.id)).run();
    return item;
  });
  reconcileStoragePause(item.folderId);
  return item;
}

/**
 * Puts the user's deleted item back where it was, if it was deleted within
 * the window; null when there is nothing (any more) to restore.
 */
export function restoreDeletedItem(
  userId: number,
  folderId: number,
  itemId: number,
  now = new Date(),
) {
  const restored = writeTransaction((tx) => {
    const kept = tx
      .select()
      .from(deletedItems)
      .where(
        and(
          eq(deletedItems.itemId, itemId),
          eq(deletedItems.userId, userId),
          eq(deletedItems.folderId, folderId),
          gt(deletedItems.deletedAt, new Date(now.getTime() - UNDO_WINDOW_MS)),
        ),
      )
      .get();
    if (!kept) return null;
    // JSON turned the row's dates into strings.
    const stored = kept.item as unknown as Item & { createdAt: string; sentAt: string | null };
    const item: Item = {
      ...stored,
      createdAt: new Date(stored.createdAt),
      sentAt: stored.sentAt ? new Date(stored.sentAt) : null,
    };
    tx.insert(contentItems).values(item).run();
    tx.delete(deletedItems).where(eq(deletedItems.itemId, itemId)).run();
    return item;
  });
  if (restored) reconcileStoragePause(restored.folderId);
  return restored;
}

/** Forgets deletions older than the window and releases their files. */
export async function purgeExpiredDeletions(now = new Date()) {
  const expired = db
    .delete(deletedItems)
    .where(lte(deletedItems.deletedAt, new Date(now.getTime() - UNDO_WINDOW_MS)))
    .returning({ fileKeys: deletedItems.fileKeys })
    .all();
  await releaseFiles(expired.flatMap((row) => row.fileKeys));
  return expired.length;
}

/** Files of items that Undo may still bring back: the orphan sweep must keep them. */
export function undoableFileKeys() {
  return db
    .select({ fileKeys: deletedItems.fileKeys })
    .from(deletedItems)
    .all()
    .flatMap((row) => row.fileKeys);
}
