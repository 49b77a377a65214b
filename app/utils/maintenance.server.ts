import { isNull } from "drizzle-orm";
import { db } from "#db/client.server";
import { contentItems } from "#db/schema";
import { draftFileKeys } from "~/utils/upload-drafts.server";
import { removeOrphanFiles } from "~/utils/uploads.server";

/**
 * Deletes stored files that no unsent content item refers to (left by a crash
 * between storing a file and writing its row, between a send's finish and its
 * release of the files, or a failed delete): a sent item's files are released
 * when it is sent. Files younger than an hour are kept: their upload may still
 * be writing its row.
 */
export async function sweepOrphanFiles() {
  const referenced = new Set<string>();
  for (const item of db
    .select({ filePaths: contentItems.filePaths, thumbnailPaths: contentItems.thumbnailPaths })
    .from(contentItems)
    .where(isNull(contentItems.sentAt))
    .all()) {
    for (const key of [...item.filePaths, ...item.thumbnailPaths]) if (key) referenced.add(key);
  }
  for (const key of draftFileKeys()) referenced.add(key);
  return removeOrphanFiles(referenced);
}
