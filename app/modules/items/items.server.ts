import { and, asc, count, desc, eq, isNull, lt, or, type Placeholder, sql } from "drizzle-orm";
import { contentItems } from "#db/schema";
import type { ContentItem } from "#db/types";
import { itemFileKeys, releaseFiles } from "~/modules/files/stored-files.server";
import type { StoredUpload } from "~/modules/files/upload-kinds";
import { type Folder, getFolder, reconcileStoragePause } from "~/modules/folders/folders.server";
import { LIMITS } from "~/modules/plans/limits";
import { db, prepareOnce, writeTransaction } from "~/platform/db.server";
import { assertFits, getItem, ItemNotFoundError, ItemRuleError } from "./item-rules.server";
import type { LinkInput, MusingInput, UploadDetailsInput } from "./item-validation";
import { previewColumnsFor } from "./link-preview-columns";
import { requestPreviewPass } from "./link-preview-queue.server";

/**
 * Content items: the links, musings, photos and files saved into a folder and
 * waiting for its next delivery. Every query goes through the folder's owner.
 */
export type Item = ContentItem;

const PAGE_SIZE = LIMITS.item.pageSize;

const unsentIn = (folderId: number | Placeholder) =>
  and(eq(contentItems.folderId, folderId), isNull(contentItems.sentAt));

const unsentCountQuery = prepareOnce((database) =>
  database
    .select({ n: count() })
    .from(contentItems)
    .where(unsentIn(sql.placeholder("folderId")))
    .prepare(),
);

/** What the dashboard's item list shows: not the sending or quarantine bookkeeping. */
const listedColumns = {
  id: contentItems.id,
  type: contentItems.type,
  title: contentItems.title,
  urls: contentItems.urls,
  note: contentItems.note,
  addComment: contentItems.addComment,
  commentText: contentItems.commentText,
  askQuestion: contentItems.askQuestion,
  questionText: contentItems.questionText,
  responseExpectation: contentItems.responseExpectation,
  filePaths: contentItems.filePaths,
  fileNames: contentItems.fileNames,
  fileSizes: contentItems.fileSizes,
  thumbnailPaths: contentItems.thumbnailPaths,
  previewStatus: contentItems.previewStatus,
  previewTitle: contentItems.previewTitle,
  previewDescription: contentItems.previewDescription,
  previewSiteName: contentItems.previewSiteName,
  previewImageKey: contentItems.previewImageKey,
  videoStatus: contentItems.videoStatus,
  videoProgress: contentItems.videoProgress,
  videoError: contentItems.videoError,
  missingFiles: contentItems.missingFiles,
};

export type ListedItem = Pick<Item, keyof typeof listedColumns>;

const unsentPageQuery = prepareOnce((database) =>
  database
    .select(listedColumns)
    .from(contentItems)
    .where(unsentIn(sql.placeholder("folderId")))
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare(),
);

/** A JSON list column as stored; most items have none of their lists filled, so "[]" is not parsed. */
function storedList<T>(value: unknown): T[] {
  return value === "[]" || typeof value !== "string" ? [] : (JSON.parse(value) as T[]);
}

/**
 * A row of `unsentPageQuery` read as SQLite returns it (`values()`, in the
 * order of `listedColumns`). drizzle's own row mapping parsed every JSON list,
 * most of them "[]", and took about as long as reading the rows.
 */
function listedItem(row: unknown[]): ListedItem {
  return {
    id: row[0] as number,
    type: row[1] as Item["type"],
    title: row[2] as string,
    urls: storedList<string>(row[3]),
    note: row[4] as string | null,
    addComment: row[5] === 1,
    commentText: row[6] as string | null,
    askQuestion: row[7] === 1,
    questionText: row[8] as string | null,
    responseExpectation: row[9] as Item["responseExpectation"],
    filePaths: storedList<string>(row[10]),
    fileNames: storedList<string>(row[11]),
    fileSizes: storedList<number>(row[12]),
    thumbnailPaths: storedList<string>(row[13]),
    previewStatus: row[14] as Item["previewStatus"],
    previewTitle: row[15] as string | null,
    previewDescription: row[16] as string | null,
    previewSiteName: row[17] as string | null,
    previewImageKey: row[18] as string | null,
    videoStatus: row[19] as Item["videoStatus"],
    videoProgress: row[20] as number,
    videoError: row[21] as string | null,
    missingFiles: storedList<string>(row[22]),
  };
}

/**
 * One page of the folder's items. A page beyond the last is clamped to the
 * last (docs/product-rules.md, Folders and items), so deleting the last item of a page steps back.
 * The pages show 50; the API may ask for another page size.
 */
export function listItems(folderId: number, requestedPage: number, pageSize: number = PAGE_SIZE) {
  const total = unsentCountQuery().get({ folderId })?.n ?? 0;
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(Math.max(1, Math.floor(requestedPage) || 1), totalPages);
  const rows = unsentPageQuery().values({
    folderId,
    limit: pageSize,
    offset: (page - 1) * pageSize,
  });
  const items = (rows as unknown[][]).map(listedItem);
  return {
    items,
    pagination: {
      page,
      limit: pageSize,
      total,
      totalPages,
      hasMore: page < totalPages,
      hasPrevious: page > 1,
    },
  };
}

/**
 * Where the folder page shows an unsent item: the list's page that holds it and the item's
 * anchor, so a save lands on the item and highlights it (the `:target` card,
 * docs/decisions/0138-a-save-lands-on-its-item.md). The caller has checked the folder is the
 * user's.
 */
export function itemAddress(item: Pick<Item, "id" | "folderId" | "sortOrder">) {
  const before =
    db
      .select({ n: count() })
      .from(contentItems)
      .where(
        and(
          unsentIn(item.folderId),
          or(
            lt(contentItems.sortOrder, item.sortOrder),
            and(eq(contentItems.sortOrder, item.sortOrder), lt(contentItems.id, item.id)),
          ),
        ),
      )
      .get()?.n ?? 0;
  const page = Math.floor(before / PAGE_SIZE) + 1;
  return `/folders/${item.folderId}${page > 1 ? `?page=${page}` : ""}#item-${item.id}`;
}

function nextSortOrder(folderId: number) {
  const last = db
    .select({ sortOrder: contentItems.sortOrder })
    .from(contentItems)
    .where(unsentIn(folderId))
    .orderBy(desc(contentItems.sortOrder))
    .get();
  return (last?.sortOrder ?? -1) + 1;
}

function assertWritable(folder: Folder) {
  if (folder.isUnsubscribed) {
    throw new ItemRuleError(
      "Every recipient of this folder has unsubscribed, so nothing can be added.",
    );
  }
}

/**
 * Saves a link or a musing. Every way of saving a link (the dialog, `/add`,
 * the API and extension, the multi-folder wizard) comes through here, so each
 * gets its preview: marked pending with the row, fetched in the background.
 */
export function createTextItem(userId: number, folderId: number, input: LinkInput | MusingInput) {
  const created = writeTransaction((tx) => {
    const folder = getFolder(userId, folderId);
    assertWritable(folder);
    const values =
      input.type === "link"
        ? {
            type: "link" as const,
            title: input.title,
            urls: input.urls,
            addComment: input.addComment,
            askQuestion: input.askQuestion,
            commentText: input.commentText,
            questionText: input.questionText,
            responseExpectation: input.responseExpectation,
            ...previewColumnsFor(input.urls),
          }
        : { type: "musing" as const, title: input.title, note: input.note };
    return tx
      .insert(contentItems)
      .values({ folderId: folder.id, sortOrder: nextSortOrder(folder.id), ...values })
      .returning()
      .get();
  });
  if (created.previewStatus === "pending") requestPreviewPass();
  return created;
}

function fileColumns(stored: StoredUpload[]) {
  return {
    filePaths: stored.map((file) => file.key),
    thumbnailPaths: stored.map((file) => file.thumbnailKey ?? ""),
    fileNames: stored.map((file) => file.name),
    fileSizes: stored.map((file) => file.size),
    mimeTypes: stored.map((file) => file.mimeType),
  };
}

export function createUploadItem(
  userId: number,
  folderId: number,
  type: "photo" | "file" | "video",
  input: UploadDetailsInput,
  stored: StoredUpload[],
  options: { fromDraftId?: string } = {},
) {
  return writeTransaction((tx) => {
    const folder = getFolder(userId, folderId);
    assertWritable(folder);
    const size = stored.reduce((sum, file) => sum + file.size, 0);
    // A video's e-mail carries its poster only (docs/decisions/0204-videos-are-their-own-item.md).
    assertFits(userId, folder, size, {
      exceptDraftId: options.fromDraftId,
      emailBytes: type === "video" ? 0 : size,
    });
    return tx
      .insert(contentItems)
      .values({
        folderId: folder.id,
        type,
        ...(type === "video" ? { videoStatus: "preparing" as const } : {}),
        title: input.title,
        addComment: input.addComment,
        askQuestion: input.askQuestion,
        commentText: input.commentText,
        questionText: input.questionText,
        responseExpectation: input.responseExpectation,
        sortOrder: nextSortOrder(folder.id),
        ...fileColumns(stored),
      })
      .returning()
      .get();
  });
}

/**
 * Saves an edit of a link or musing. A link whose first address changed gets
 * a fresh preview; the old picture is released by the orphan sweep.
 */
export function updateTextItem(userId: number, itemId: number, input: LinkInput | MusingInput) {
  const updated = writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    if (item.type !== input.type) throw new ItemNotFoundError();
    const preview = input.type === "link" ? previewColumnsFor(input.urls) : null;
    const values =
      input.type === "link"
        ? {
            title: input.title,
            urls: input.urls,
            addComment: input.addComment,
            askQuestion: input.askQuestion,
            commentText: input.commentText,
            questionText: input.questionText,
            responseExpectation: input.responseExpectation,
            ...(preview && preview.previewUrl !== item.previewUrl ? preview : {}),
          }
        : { title: input.title, note: input.note };
    return tx
      .update(contentItems)
      .set(values)
      .where(eq(contentItems.id, item.id))
      .returning()
      .get();
  });
  if (updated.previewStatus === "pending") requestPreviewPass();
  return updated;
}

/** Saves the text of a photo or file item and appends any newly uploaded files. */
export function updateUploadItem(
  userId: number,
  itemId: number,
  input: UploadDetailsInput,
  added: StoredUpload[],
) {
  return writeTransaction((tx) => {
    const { item, folder } = getItem(userId, itemId);
    if (item.type !== "photo" && item.type !== "file" && item.type !== "video") {
      throw new ItemNotFoundError();
    }
    const maxFiles =
      item.type === "video"
        ? 1
        : item.type === "photo"
          ? LIMITS.item.maxPhotos
          : LIMITS.item.maxFiles;
    if (item.filePaths.length + added.length > maxFiles) {
      throw new ItemRuleError(
        item.type === "photo" ? "Photo limit reached" : `At most ${maxFiles} files per item.`,
      );
    }
    if (added.length > 0)
      assertFits(
        userId,
        folder,
        added.reduce((sum, file) => sum + file.size, 0),
      );
    const extra = fileColumns(added);
    return tx
      .update(contentItems)
      .set({
        title: input.title,
        addComment: input.addComment,
        askQuestion: input.askQuestion,
        commentText: input.commentText,
        questionText: input.questionText,
        responseExpectation: input.responseExpectation,
        filePaths: [...item.filePaths, ...extra.filePaths],
        thumbnailPaths: [...item.thumbnailPaths, ...extra.thumbnailPaths],
        fileNames: [...item.fileNames, ...extra.fileNames],
        fileSizes: [...item.fileSizes, ...extra.fileSizes],
        mimeTypes: [...item.mimeTypes, ...extra.mimeTypes],
      })
      .where(eq(contentItems.id, item.id))
      .returning()
      .get();
  });
}

/**
 * Removes one file from an item (by position); the last one cannot go.
 * Returns the stored keys to delete.
 */
export async function removeItemFile(userId: number, itemId: number, index: number) {
  const removed = writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    if (!Number.isInteger(index) || index < 0 || index >= item.filePaths.length) {
      throw new ItemNotFoundError();
    }
    if (item.filePaths.length === 1) {
      throw new ItemRuleError(
        "The last file of an item cannot be removed. Delete the item instead.",
      );
    }
    const without = <T>(list: T[]) => list.filter((_, position) => position !== index);
    tx.update(contentItems)
      .set({
        filePaths: without(item.filePaths),
        thumbnailPaths: without(item.thumbnailPaths),
        fileNames: without(item.fileNames),
        fileSizes: without(item.fileSizes),
        mimeTypes: without(item.mimeTypes),
      })
      .where(eq(contentItems.id, item.id))
      .run();
    return { keys: [item.filePaths[index], item.thumbnailPaths[index]], folderId: item.folderId };
  });
  reconcileStoragePause(removed.folderId);
  await releaseFiles(removed.keys.filter((key): key is string => Boolean(key)));
}

/** Deletes the item at once (no undo), then releases its stored files. */
export async function deleteItem(userId: number, itemId: number) {
  const deleted = writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    tx.delete(contentItems).where(eq(contentItems.id, item.id)).run();
    return item;
  });
  reconcileStoragePause(deleted.folderId);
  const keys = itemFileKeys(deleted);
  await releaseFiles(keys);
  return { keys, folderId: deleted.folderId };
}

/** Swaps the item with its neighbour; the first cannot move up, the last cannot move down. */
export function moveItem(userId: number, itemId: number, direction: "up" | "down") {
  return writeTransaction((tx) => {
    const { item } = getItem(userId, itemId);
    const ordered = tx
      .select({ id: contentItems.id, sortOrder: contentItems.sortOrder })
      .from(contentItems)
      .where(unsentIn(item.folderId))
      .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
      .all();
    const index = ordered.findIndex((candidate) => candidate.id === item.id);
    const target = direction === "up" ? index - 1 : index + 1;
    if (target < 0 || target >= ordered.length) return item.folderId;
    const ids = ordered.map((candidate) => candidate.id);
    [ids[index], ids[target]] = [ids[target]!, ids[index]!];
    ids.forEach((id, position) => {
      if (ordered.find((candidate) => candidate.id === id)?.sortOrder !== position) {
        tx.update(contentItems).set({ sortOrder: position }).where(eq(contentItems.id, id)).run();
      }
    });
    return item.folderId;
  });
}
