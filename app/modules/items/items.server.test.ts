import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems } from "#db/schema";
import { folderContentSize } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { createUploadItem, itemAddress, listItems } from "./items.server";

function folderWithItems(items: Omit<typeof contentItems.$inferInsert, "folderId">[]) {
  const folder = createFolder(db, createUser(db).id);
  db.insert(contentItems)
    .values(items.map((item) => ({ ...item, folderId: folder.id })))
    .run();
  return folder;
}

describe("listItems", () => {
  test("reads every listed field of a stored item, lists and flags included", () => {
    const folder = folderWithItems([
      {
        type: "photo",
        title: "Holiday",
        urls: ["https://example.com/a"],
        note: "A note",
        addComment: true,
        commentText: "A comment",
        askQuestion: true,
        questionText: "A question?",
        responseExpectation: "expecting",
        filePaths: ["u/a.jpg", "u/b.jpg"],
        fileNames: ["a.jpg", "b.jpg"],
        fileSizes: [10, 20],
        thumbnailPaths: ["u/a-thumb.jpg", ""],
        previewStatus: "ready",
        previewTitle: "Title",
        previewDescription: "Description",
        previewSiteName: "Site",
        previewImageKey: "u/p.jpg",
        videoStatus: "failed",
        videoProgress: 40,
        videoError: "Too long",
        missingFiles: ["u/b.jpg"],
        sortOrder: 0,
      },
      { type: "musing", title: "Plain", sortOrder: 1 },
    ]);
    const [full, plain] = listItems(folder.id, 1).items;
    const stored = db
      .select()
      .from(contentItems)
      .where(eq(contentItems.folderId, folder.id))
      .orderBy(contentItems.sortOrder)
      .all();
    for (const [listed, row] of [
      [full!, stored[0]!],
      [plain!, stored[1]!],
    ] as const) {
      expect(listed).toEqual({
        id: row.id,
        type: row.type,
        title: row.title,
        urls: row.urls,
        note: row.note,
        addComment: row.addComment,
        commentText: row.commentText,
        askQuestion: row.askQuestion,
        questionText: row.questionText,
        responseExpectation: row.responseExpectation,
        filePaths: row.filePaths,
        fileNames: row.fileNames,
        fileSizes: row.fileSizes,
        thumbnailPaths: row.thumbnailPaths,
        previewStatus: row.previewStatus,
        previewTitle: row.previewTitle,
        previewDescription: row.previewDescription,
        previewSiteName: row.previewSiteName,
        previewImageKey: row.previewImageKey,
        videoStatus: row.videoStatus,
        videoProgress: row.videoProgress,
        videoError: row.videoError,
        missingFiles: row.missingFiles,
      });
    }
    expect(plain).toMatchObject({ addComment: false, urls: [], filePaths: [], note: null });
  });

  test("pages of 50 in the sender's order; a page past the end is the last", () => {
    const folder = folderWithItems(
      Array.from({ length: 51 }, (_, index) => ({
        type: "musing" as const,
        title: `Musing ${index}`,
        sortOrder: 50 - index,
      })),
    );
    const first = listItems(folder.id, 1);
    expect(first.items.map((item) => item.title).slice(0, 2)).toEqual(["Musing 50", "Musing 49"]);
    expect(first.pagination).toMatchObject({ page: 1, total: 51, totalPages: 2, hasMore: true });
    const beyond = listItems(folder.id, 9);
    expect(beyond.items.map((item) => item.title)).toEqual(["Musing 0"]);
    expect(beyond.pagination).toMatchObject({ page: 2, hasMore: false, hasPrevious: true });
  });
});

describe("createUploadItem", () => {
  const details = {
    title: "First steps",
    addComment: true,
    commentText: "Look",
    askQuestion: false,
    questionText: "",
    responseExpectation: "na" as const,
  };
  const clip = (size: number) => ({
    key: "u/clip.mov",
    name: "clip.mov",
    size,
    mimeType: "video/quicktime",
  });

  test("a video waits to be prepared, and its clip does not count in the folder's e-mail", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    // Larger than the folder's 20 MB e-mail: it carries the poster, not the clip.
    const item = createUploadItem(user.id, folder.id, "video", details, [clip(30 * 1024 * 1024)]);
    expect(item).toMatchObject({ type: "video", videoStatus: "preparing", videoProgress: 0 });
    expect(folderContentSize(folder.id)).toBe(0);
  });

  test("a video still counts in the account's storage", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    expect(() =>
      createUploadItem(user.id, folder.id, "video", details, [clip(1024 * 1024 * 1024)]),
    ).toThrow(/across 0 folders|across 1 folders/);
  });
});

describe("itemAddress", () => {
  test("names the page of the list that shows the item, and its anchor", () => {
    const folder = folderWithItems(
      Array.from({ length: 51 }, (_, index) => ({
        type: "musing" as const,
        title: `Musing ${index}`,
        sortOrder: index,
      })),
    );
    const rows = db
      .select()
      .from(contentItems)
      .where(eq(contentItems.folderId, folder.id))
      .orderBy(contentItems.sortOrder)
      .all();
    expect(itemAddress(rows[0]!)).toBe(`/folders/${folder.id}#item-${rows[0]!.id}`);
    expect(itemAddress(rows[49]!)).toBe(`/folders/${folder.id}#item-${rows[49]!.id}`);
    expect(itemAddress(rows[50]!)).toBe(`/folders/${folder.id}?page=2#item-${rows[50]!.id}`);
  });
});
