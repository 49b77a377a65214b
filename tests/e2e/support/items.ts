import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { asc, eq } from "drizzle-orm";
import { createItem } from "#db/factories";
import { contentItems } from "#db/schema";
import { testDb } from "./accounts";

/** The server's upload directory (playwright.config.ts: STORAGE_DIR). */
export function uploadsDir() {
  return path.join(process.env.E2E_DATA_DIR!, "uploads");
}

export function createItemRow(
  folderId: number,
  values: Partial<typeof contentItems.$inferInsert> & { title: string },
) {
  return createItem(testDb(), folderId, values);
}

/** Many rows in one statement (pagination tests). */
export function createItemRows(folderId: number, count: number) {
  return testDb()
    .insert(contentItems)
    .values(
      Array.from({ length: count }, (_, index) => ({
        folderId,
        type: "musing" as const,
        title: `Item ${index + 1}`,
        note: `Note ${index + 1}`,
        sortOrder: index,
      })),
    )
    .returning()
    .all();
}

export function itemsOf(folderId: number) {
  return testDb()
    .select()
    .from(contentItems)
    .where(eq(contentItems.folderId, folderId))
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
}

/** Where the server keeps the file with this key (storage/local-disk.ts). */
export function storedPath(key: string) {
  return path.join(uploadsDir(), key.slice(0, 2), key);
}

/** Writes a file straight into storage, as an upload would have, and returns its key. */
export function writeStoredFile(content: Buffer) {
  const key = crypto.randomBytes(16).toString("hex");
  fs.mkdirSync(path.dirname(storedPath(key)), { recursive: true });
  fs.writeFileSync(storedPath(key), content);
  return key;
}

/** Every file name in storage, finished or still being written (`.partial`). */
export function storedFiles() {
  const root = uploadsDir();
  if (!fs.existsSync(root)) return new Set<string>();
  const names = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => fs.readdirSync(path.join(root, entry.name)));
  return new Set(names);
}

/**
 * Files that appeared in storage since `before` and that no item row refers
 * to. Other tests upload at the same time, so callers poll: their files soon
 * get a row (or are removed), a file our own request left behind never does.
 */
export function strayFilesSince(before: Set<string>) {
  const referenced = new Set(
    testDb()
      .select({
        filePaths: contentItems.filePaths,
        thumbnailPaths: contentItems.thumbnailPaths,
        previewImageKey: contentItems.previewImageKey,
      })
      .from(contentItems)
      .all()
      .flatMap((row) => [...row.filePaths, ...row.thumbnailPaths, row.previewImageKey ?? ""]),
  );
  return [...storedFiles()].filter((name) => !before.has(name) && !referenced.has(name));
}
