import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { contentItems, type DraftFile, uploadDrafts } from "#db/schema";
import { claimedUploadKind } from "~/modules/files/upload-kinds";
import { FolderNotFoundError } from "~/modules/folders/folders.server";
import { videoPassSettled } from "~/modules/items/video-preparation-queue.server";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import {
  lastUsedFolderId,
  linkSharePath,
  readShare,
  SharedSaveSchema,
  saveSharedDraft,
  sharedUploadDetails,
} from "./share-target.server";
import { createDraft, DraftNotFoundError } from "./upload-drafts.server";

const at = { date: new Date("2026-11-04T10:00:00Z"), timeZone: "Europe/London" };

function shareForm(fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

async function storedPhoto(): Promise<DraftFile> {
  const bytes = crypto.randomBytes(64);
  const { key } = await storage.put(
    (async function* () {
      yield new Uint8Array(bytes);
    })(),
  );
  return { key, name: "IMG_2041.jpg", size: bytes.length, mimeType: "image/jpeg" };
}

describe("readShare and sharedUploadDetails", () => {
  test("a shared title loses its site's name (withoutSiteName), and the text becomes the comment", () => {
    const capture = readShare(
      shareForm({
        title: "Bread for Sunday | The Guardian",
        text: "For Mum https://www.theguardian.com/food/bread",
      }),
    );
    expect(capture).toMatchObject({
      title: "Bread for Sunday",
      url: "https://www.theguardian.com/food/bread",
      note: "For Mum",
    });
    expect(sharedUploadDetails(capture, "photo", [{ name: "IMG_2041.jpg" }], at)).toMatchObject({
      title: "Bread for Sunday",
      addComment: true,
      commentText: "For Mum\nhttps://www.theguardian.com/food/bread",
    });
  });

  test("without a shared title a camera photo is titled by its day, a document by its name", () => {
    const nothing = readShare(shareForm({}));
    expect(sharedUploadDetails(nothing, "photo", [{ name: "IMG_2041.jpg" }], at)).toMatchObject({
      title: "Photo, Wed 4 Nov",
      addComment: false,
      commentText: null,
    });
    expect(sharedUploadDetails(nothing, "file", [{ name: "summer-menu.pdf" }], at).title).toBe(
      "summer menu",
    );
  });

  test("over-long shared words are cut, never refused", () => {
    const capture = readShare(shareForm({ title: "t".repeat(600), text: "n".repeat(3000) }));
    const details = sharedUploadDetails(capture, "photo", [{ name: "a.jpg" }], at);
    expect(details.title.length).toBeLessThanOrEqual(200);
    expect(details.commentText!.length).toBeLessThanOrEqual(1000);
  });
});

describe("lastUsedFolderId", () => {
  test("the folder of the most recently added item, among the person's own that take items", () => {
    const user = createUser(db);
    expect(lastUsedFolderId(user.id)).toBeNull();
    const first = createFolder(db, user.id, { name: "First" });
    const second = createFolder(db, user.id, { name: "Second" });
    expect(lastUsedFolderId(user.id)).toBe(first.id);
    createItem(db, second.id);
    expect(lastUsedFolderId(user.id)).toBe(second.id);
    createItem(db, first.id);
    expect(lastUsedFolderId(user.id)).toBe(first.id);

    // Someone else's newer item changes nothing.
    const other = createUser(db);
    createItem(db, createFolder(db, other.id).id);
    expect(lastUsedFolderId(user.id)).toBe(first.id);

    // A folder whose recipients have all left takes nothing, so it is not offered.
    const gone = createFolder(db, user.id, { name: "Gone", isUnsubscribed: true });
    createItem(db, gone.id);
    expect(lastUsedFolderId(user.id)).toBe(first.id);
  });

  test("a share without files opens Add Link on that folder", () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const capture = readShare(shareForm({ url: "https://a.example/x", title: "A" }));
    expect(linkSharePath(user.id, capture)).toBe(
      `/add/${folder.id}?extension=true&url=https%3A%2F%2Fa.example%2Fx&title=A`,
    );
    const noFolders = createUser(db);
    expect(linkSharePath(noFolders.id, capture)).toMatch(/^\/add\?/);
  });
});

describe("saveSharedDraft", () => {
  test("the Save tap makes the draft one photo item in the chosen folder, and the draft goes", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const file = await storedPhoto();
    const details = sharedUploadDetails(readShare(shareForm({})), "photo", [file], at);
    const draft = await createDraft(user.id, "photo", details, [file]);

    const input = SharedSaveSchema.parse({
      folderId: String(folder.id),
      title: "",
      note: "Hi\r\nthere",
    });
    const item = await saveSharedDraft(user.id, draft.id, input);
    expect(item).toMatchObject({
      folderId: folder.id,
      type: "photo",
      title: "Photo, Wed 4 Nov",
      addComment: true,
      commentText: "Hi\nthere",
      filePaths: [file.key],
    });
    expect(db.select().from(uploadDrafts).where(eq(uploadDrafts.id, draft.id)).get()).toBe(
      undefined,
    );
    expect(await storage.stat(file.key)).not.toBeNull();
  });

  test("a shared clip is claimed as a video, and the Save tap makes it one video item, preparing", async () => {
    expect(claimedUploadKind("video/quicktime", "IMG_0042.MOV")).toBe("video");
    expect(claimedUploadKind("", "IMG_0042.mp4")).toBe("video");
    expect(claimedUploadKind("application/octet-stream", "notes.pdf")).toBe("file");
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const { key, size } = await storage.put(
      (async function* () {
        yield new Uint8Array(crypto.randomBytes(64));
      })(),
    );
    const clip = { key, name: "IMG_0042.mp4", size, mimeType: "video/mp4" };
    const details = sharedUploadDetails(readShare(shareForm({})), "video", [clip], at);
    const draft = await createDraft(user.id, "video", details, [clip]);
    const input = SharedSaveSchema.parse({ folderId: String(folder.id), title: "", note: "" });
    const item = await saveSharedDraft(user.id, draft.id, input);
    expect(item).toMatchObject({ type: "video", videoStatus: "preparing", filePaths: [key] });
    // The pass the Save asked for judges the bytes (these are no clip) and says so on the item.
    await videoPassSettled();
    const prepared = db.select().from(contentItems).where(eq(contentItems.id, item.id)).get();
    expect(prepared?.videoStatus).toBe("failed");
  });

  test("only the person's own draft, into the person's own folder", async () => {
    const user = createUser(db);
    const other = createUser(db);
    const theirs = createFolder(db, other.id);
    const file = await storedPhoto();
    const draft = await createDraft(
      user.id,
      "photo",
      sharedUploadDetails(readShare(shareForm({})), "photo", [file], at),
      [file],
    );
    await expect(
      saveSharedDraft(other.id, draft.id, { folderId: theirs.id, note: undefined }),
    ).rejects.toBeInstanceOf(DraftNotFoundError);
    await expect(
      saveSharedDraft(user.id, draft.id, { folderId: theirs.id, note: undefined }),
    ).rejects.toBeInstanceOf(FolderNotFoundError);
    expect(
      db.select().from(contentItems).where(eq(contentItems.folderId, theirs.id)).all(),
    ).toEqual([]);
  });

  test("an empty folder choice reads as one to make", () => {
    const result = SharedSaveSchema.safeParse({ folderId: "" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("Please choose a folder");
  });
});
