import { db } from "#db/client.server";
import { contentItems } from "#db/schema";
import { purgeExpiredDeletions, undoableFileKeys } from "~/utils/item-undo.server";
import { draftFileKeys } from "~/utils/upload-drafts.server";
import { removeOrphanFiles } from "~/utils/uploads.server";

/**
 * Deletes stored files that no content item refers to (left by a crash between
 * storing a file and writing its row, or a failed delete). Files younger than
 * an hour are kept: their upload may still be writing its row.
 */
export async function sweepOrphanFiles() {
  await purgeExpiredDeletions();
  const referenced = new Set<string>();
  for (const item of db
    .select({ filePaths: contentItems.filePaths, thumbnailPaths: contentItems.thumbnailPaths })
    .from(contentItems)
    .all()) {
    for (const key of [...item.filePaths, ...item.thumbnailPaths]) if (key) referenced.add(key);
  }
  for (const key of draftFileKeys()) referenced.add(key);
  for (const key of undoableFileKeys()) referenced.add(key);
  return removeOrphanFiles(referenced);
}
