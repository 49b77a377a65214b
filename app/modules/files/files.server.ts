import { createReadableStreamFromReadable } from "@remix-run/node";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import { contentItems, folders } from "#db/schema";
import { isStorageKey } from "#storage/storage";
import { archiveFileCutoff } from "~/modules/plans/limits";
import { byteRangeOf } from "~/platform/byte-range";
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
 * none (or it is gone from storage). A picture or a video opens in place and
 * anything else downloads; its type is never sniffed and nothing in it may
 * run. A `Range` request gets its bytes alone (206), as a video player asks
 * to start and to seek (app/platform/byte-range.ts). `headers` adds what one
 * route needs beyond that.
 */
export async function storedFileResponse(
  request: Request,
  file: { key: string; name: string; mimeType: string } | null,
  headers: Record<string, string> = {},
) {
  const stat = file ? await storage.stat(file.key) : null;
  invariantResponse(file && stat);
  const asked = byteRangeOf(request.headers.get("Range"), stat.size);
  const common = {
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, max-age=3600",
    ...headers,
  };
  if (asked.kind === "unsatisfiable") {
    return new Response(null, {
      status: 416,
      headers: { ...common, "Content-Range": `bytes */${stat.size}` },
    });
  }
  const range = asked.kind === "range" ? { start: asked.start, end: asked.end } : undefined;
  const stream = await storage.get(file.key, { range });
  invariantResponse(stream);
  const inline = /^(?:image|video)\//.test(file.mimeType);
  return new Response(createReadableStreamFromReadable(stream), {
    status: range ? 206 : 200,
    headers: {
      "Content-Type": file.mimeType,
      "Content-Length": String(range ? range.end - range.start + 1 : stat.size),
      ...(range ? { "Content-Range": `bytes ${range.start}-${range.end}/${stat.size}` } : {}),
      "Content-Disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "Content-Security-Policy":
        "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox",
      ...common,
    },
  });
}
