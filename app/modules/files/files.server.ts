import { createReadableStreamFromReadable } from "@remix-run/node";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { contentItems, folders } from "#db/schema";
import { isStorageKey } from "#storage/storage";
import { archiveFileCutoff } from "~/modules/billing/limits";
import { db } from "~/platform/db.server";
import { invariantResponse } from "~/platform/errors.server";
import { storage } from "~/platform/storage.server";

/**
 * The stored file with this key if, and only if, it belongs to an unsent item
 * in one of the user's folders (a file, a thumbnail or a link preview's
 * picture), or a sent one still kept for the sent archive; its name and type
 * come from our own records.
 */
export function findOwnedFile(userId: number, key: string, now = new Date()) {
  if (!isStorageKey(key)) return null;
  const row = db
    .select({ item: contentItems })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(
      and(
        eq(folders.userId, userId),
        or(isNull(contentItems.sentAt), gt(contentItems.sentAt, archiveFileCutoff(now))),
        sql`(exists (select 1 from json_each(${contentItems.filePaths}) where value = ${key})
          or exists (select 1 from json_each(${contentItems.thumbnailPaths}) where value = ${key})
          or ${contentItems.previewImageKey} = ${key})`,
      ),
    )
    .get();
  if (!row) return null;
  const { item } = row;
  const index = item.filePaths.indexOf(key);
  if (index >= 0) {
    return {
      key,
      name: item.fileNames[index] ?? "file",
      mimeType: item.mimeTypes[index] ?? "application/octet-stream",
    };
  }
  if (item.previewImageKey === key) return { key, name: "preview.jpg", mimeType: "image/jpeg" };
  const thumbIndex = item.thumbnailPaths.indexOf(key);
  return {
    key,
    name: `thumbnail-${item.fileNames[thumbIndex] ?? "photo"}.jpg`,
    mimeType: "image/jpeg",
  };
}

/**
 * A stored file as the answer to its own address, or the 404 when there is
 * none (or it is gone from storage). A picture opens in place and anything
 * else downloads; its type is never sniffed and nothing in it may run.
 * `headers` adds what one route needs beyond that.
 */
export async function storedFileResponse(
  file: { key: string; name: string; mimeType: string } | null,
  headers: Record<string, string> = {},
) {
  const stat = file ? await storage.stat(file.key) : null;
  const stream = file && stat ? await storage.get(file.key) : null;
  invariantResponse(file && stat && stream);
  const disposition = file.mimeType.startsWith("image/") ? "inline" : "attachment";
  return new Response(createReadableStreamFromReadable(stream), {
    headers: {
      "Content-Type": file.mimeType,
      "Content-Length": String(stat.size),
      "Content-Disposition": `${disposition}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, max-age=3600",
      "Content-Security-Policy":
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
      ...headers,
    },
  });
}
