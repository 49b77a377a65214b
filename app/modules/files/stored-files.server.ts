import { sql } from "drizzle-orm";
import { archiveFileCutoff } from "~/modules/plans/limits";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import type { StoredUpload } from "./upload-kinds";

/**
 * Stored files once they are written: which keys an upload holds, which are
 * still referred to, releasing those nothing refers to any more, and sweeping
 * orphans. The intake (multipart parsing, checks, photo re-encoding) is
 * app/modules/uploads/uploads.server.ts.
 */

/** Every storage key the uploads use (files and thumbnails). */
export function storedKeys(uploads: StoredUpload[]) {
  return uploads.flatMap((upload) =>
    upload.thumbnailKey ? [upload.key, upload.thumbnailKey] : [upload.key],
  );
}

/** Every stored file an item refers to: the files, their thumbnails and a link preview's picture. */
export function itemFileKeys(item: {
  filePaths: string[];
  thumbnailPaths: string[];
  previewImageKey?: string | null;
}) {
  return [...item.filePaths, ...item.thumbnailPaths, item.previewImageKey ?? ""].filter(Boolean);
}

/** Deletes stored files; a failure to delete one is logged, not thrown (orphans are swept later). */
export async function deleteStoredFiles(keys: string[]) {
  const results = await Promise.allSettled(keys.map((key) => storage.delete(key)));
  for (const result of results) {
    if (result.status === "rejected")
      console.error("Could not delete a stored file", result.reason);
  }
}

/**
 * The keys among `keys` that an unsent content item (files or thumbnails), a
 * sent one still in its archive retention (ARCHIVE_FILE_RETENTION_DAYS) or an
 * upload draft still refers to. One file may serve several folders' items
 * (the multi-folder upload stores it once), so no path deletes a key without
 * asking this first.
 */
export function stillReferencedKeys(keys: string[], now = new Date()): Set<string> {
  if (keys.length === 0) return new Set();
  const wanted = JSON.stringify([...new Set(keys)]);
  const keptSince = archiveFileCutoff(now).getTime();
  const rows = db.all<{ key: string }>(sql`
    with wanted(key) as (select value from json_each(${wanted}))
    select je.value as key from content_items, json_each(content_items.file_paths) as je
     where (content_items.sent_at is null or content_items.sent_at > ${keptSince})
       and je.value in (select key from wanted)
    union
    select je.value from content_items, json_each(content_items.thumbnail_paths) as je
     where (content_items.sent_at is null or content_items.sent_at > ${keptSince})
       and je.value in (select key from wanted)
    union
    select json_extract(je.value, '$.key') from upload_drafts, json_each(upload_drafts.files) as je
     where json_extract(je.value, '$.key') in (select key from wanted)
    union
    select json_extract(je.value, '$.thumbnailKey') from upload_drafts, json_each(upload_drafts.files) as je
     where json_extract(je.value, '$.thumbnailKey') in (select key from wanted)`);
  return new Set(rows.map((row) => row.key));
}

/**
 * Deletes the stored files among `keys` that nothing refers to any more (call
 * it after the rows that used them are gone); keys still used by another
 * folder's item or a draft stay. Returns the keys deleted.
 */
export async function releaseFiles(keys: string[]) {
  const candidates = [...new Set(keys.filter(Boolean))];
  const used = stillReferencedKeys(candidates);
  const unused = candidates.filter((key) => !used.has(key));
  await deleteStoredFiles(unused);
  return unused;
}

/**
 * Deletes stored files that no row refers to, and leftovers of interrupted
 * writes. Files younger than `olderThanMs` are kept: they may belong to an
 * upload whose row is not written yet. Returns how many files were removed.
 */
export async function removeOrphanFiles(referencedKeys: Set<string>, olderThanMs = 60 * 60 * 1000) {
  const cutoff = Date.now() - olderThanMs;
  let removed = 0;
  for await (const key of storage.list()) {
    if (referencedKeys.has(key)) continue;
    const stat = await storage.stat(key);
    if (!stat || stat.modifiedAt.getTime() >= cutoff) continue;
    await storage.delete(key);
    removed += 1;
  }
  removed += (await storage.removeIncomplete?.(olderThanMs)) ?? 0;
  return removed;
}
