import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems, type DraftFile, uploadDrafts } from "#db/schema";
import { releaseFiles, stillReferencedKeys } from "~/modules/files/stored-files.server";
import { QuotaExceededError } from "~/modules/items/item-rules.server";
import { deleteItem, removeItemFile } from "~/modules/items/items.server";
import { sweepOrphanFiles } from "~/modules/jobs/maintenance.server";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import { NO_VALID_FOLDERS } from "./multi-folder";
import {
  checkFolderSelection,
  createDraft,
  type DraftFields,
  DraftNotFoundError,
  DraftRuleError,
  discardDraft,
  expireDrafts,
  finishDraft,
  finishDraftForFolder,
  getDraft,
  selectAll,
  setDraftFolders,
  updateDraftContent,
  validateDraft,
} from "./upload-drafts.server";

const MB = 1024 * 1024;
const storageDir = process.env.STORAGE_DIR!;

const uploadFields = {
  title: "Holiday",
  addComment: true,
  askQuestion: false,
  commentText: "Look",
  questionText: null,
  responseExpectation: "na",
} as unknown as DraftFields;

async function store(bytes: Uint8Array) {
  return storage.put(
    (async function* () {
      yield bytes;
    })(),
  );
}

async function storedPhoto(size: number): Promise<DraftFile> {
  const { key } = await store(crypto.randomBytes(size));
  return { key, name: "photo.jpg", size, mimeType: "image/jpeg" };
}

/** Bytes of every file under STORAGE_DIR. */
function bytesOnDisk() {
  if (!fs.existsSync(storageDir)) return 0;
  return fs
    .readdirSync(storageDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

const exists = async (key: string) => (await storage.stat(key)) !== null;

const itemsIn = (folderId: number) =>
  db.select().from(contentItems).where(eq(contentItems.folderId, folderId)).all();

describe("releaseFiles", () => {
  test("deletes only keys that no unsent item, archived sent item or draft refers to", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const inItem = (await store(Buffer.from("item"))).key;
    const inThumb = (await store(Buffer.from("thumb"))).key;
    const inDraft = (await store(Buffer.from("draft"))).key;
    const draftThumb = (await store(Buffer.from("draft thumb"))).key;
    const inSentItem = (await store(Buffer.from("sent"))).key;
    const inLongSentItem = (await store(Buffer.from("sent long ago"))).key;
    const unused = (await store(Buffer.from("unused"))).key;
    db.insert(contentItems)
      .values([
        {
          folderId: folder.id,
          type: "photo",
          title: "a",
          filePaths: [inItem],
          thumbnailPaths: [inThumb],
          fileSizes: [4],
        },
        {
          folderId: folder.id,
          type: "file",
          title: "b",
          filePaths: [inSentItem],
          fileSizes: [4],
          sentAt: new Date(),
        },
        {
          folderId: folder.id,
          type: "file",
          title: "c",
          filePaths: [inLongSentItem],
          fileSizes: [13],
          // Past the sent archive's 30 days of files.
          sentAt: new Date(Date.now() - 31 * 24 * 60 * 60 * 1000),
        },
      ])
      .run();
    await createDraft(user.id, "photo", uploadFields, [
      { key: inDraft, thumbnailKey: draftThumb, name: "d.jpg", size: 5, mimeType: "image/jpeg" },
    ]);

    const all = [inItem, inThumb, inDraft, draftThumb, inSentItem, inLongSentItem, unused];
    const kept = [inItem, inThumb, inDraft, draftThumb, inSentItem];
    expect(stillReferencedKeys(all)).toEqual(new Set(kept));
    expect((await releaseFiles([...all, unused, ""])).sort()).toEqual(
      [inLongSentItem, unused].sort(),
    );
    for (const key of kept) expect(await exists(key)).toBe(true);
    for (const key of [inLongSentItem, unused]) expect(await exists(key)).toBe(false);
    expect(await releaseFiles([])).toEqual([]);
  });
});

describe("one stored file for many folders", () => {
  test("one 5 MB photo added to 10 folders takes about 5 MB of disk, not 50", async () => {
    fs.rmSync(storageDir, { recursive: true, force: true });
    const user = createUser(db, { subscriptionTier: "premium", subscriptionStatus: "active" });
    const targets = Array.from({ length: 10 }, () => createFolder(db, user.id));
    const draft = await createDraft(user.id, "photo", uploadFields, [await storedPhoto(5 * MB)]);
    setDraftFolders(
      user.id,
      draft.id,
      targets.map((folder) => folder.id),
    );

    const result = await finishDraft(user.id, draft.id, { onlyValid: true });

    expect(result.added).toHaveLength(10);
    expect(result.finished).toBe(true);
    expect(() => getDraft(user.id, draft.id)).toThrow(DraftNotFoundError);
    const keys = new Set(targets.flatMap((folder) => itemsIn(folder.id)[0]!.filePaths));
    expect(keys.size).toBe(1);
    expect(bytesOnDisk()).toBeGreaterThanOrEqual(5 * MB);
    expect(bytesOnDisk()).toBeLessThan(5.5 * MB);
    // Each folder's quota counts the photo.
    const validation = validateDraft(user.id, { ...draft, folderIds: [targets[0]!.id] });
    expect(validation.folderValidations[0]!.currentSize).toBe(5 * MB);
  });

  test("deleting the photo from one folder keeps it for the others", async () => {
    const user = createUser(db);
    const [a, b] = [createFolder(db, user.id), createFolder(db, user.id)];
    const photo = await storedPhoto(1000);
    const draft = await createDraft(user.id, "photo", uploadFields, [
      photo,
      await storedPhoto(2000),
    ]);
    setDraftFolders(user.id, draft.id, [a.id, b.id]);
    await finishDraft(user.id, draft.id, { onlyValid: true });
    const [inA] = itemsIn(a.id);
    const [inB] = itemsIn(b.id);

    await removeItemFile(user.id, inA!.id, 0);
    expect(await exists(photo.key)).toBe(true);
    await deleteItem(user.id, inA!.id);
    expect(await exists(photo.key)).toBe(true);
    await deleteItem(user.id, inB!.id);
    expect(await exists(photo.key)).toBe(false);
    expect(await exists(inB!.filePaths[1]!)).toBe(false);
  });
});

describe("uploading to folders one by one", () => {
  test("each folder in turn leaves the draft; the last one ends it", async () => {
    const user = createUser(db);
    const [a, b] = [createFolder(db, user.id), createFolder(db, user.id)];
    const stranger = createFolder(db, createUser(db).id);
    const draft = await createDraft(user.id, "photo", uploadFields, [await storedPhoto(1000)]);
    setDraftFolders(user.id, draft.id, [a.id, b.id]);

    await expect(finishDraftForFolder(user.id, draft.id, stranger.id)).rejects.toThrow(
      DraftRuleError,
    );
    expect(itemsIn(stranger.id)).toEqual([]);

    const first = await finishDraftForFolder(user.id, draft.id, a.id);
    expect(first).toEqual({ folder: { id: a.id, name: a.name }, finished: false });
    expect(itemsIn(a.id).map((item) => item.title)).toEqual(["Holiday"]);
    expect(itemsIn(b.id)).toEqual([]);
    expect(getDraft(user.id, draft.id).folderIds).toEqual([b.id]);
    // A folder already done is not in the draft any more: no second copy.
    await expect(finishDraftForFolder(user.id, draft.id, a.id)).rejects.toThrow(DraftRuleError);

    const last = await finishDraftForFolder(user.id, draft.id, b.id);
    expect(last.finished).toBe(true);
    expect(itemsIn(b.id)).toHaveLength(1);
    expect(() => getDraft(user.id, draft.id)).toThrow(DraftNotFoundError);
  });

  test("a folder without room refuses and stays in the draft", async () => {
    const user = createUser(db);
    const full = createFolder(db, user.id);
    const draft = await createDraft(user.id, "photo", uploadFields, [await storedPhoto(21 * MB)]);
    setDraftFolders(user.id, draft.id, [full.id]);
    await expect(finishDraftForFolder(user.id, draft.id, full.id)).rejects.toThrow(DraftRuleError);
    expect(itemsIn(full.id)).toEqual([]);
    expect(getDraft(user.id, draft.id).folderIds).toEqual([full.id]);
  });
});

describe("folder selection rules", () => {
  test("refuses wrong, foreign, paused, too many and no folders", () => {
    const user = createUser(db, { subscriptionTier: "premium", subscriptionStatus: "active" });
    const other = createUser(db);
    const theirs = createFolder(db, other.id);
    const mine = Array.from({ length: 11 }, () => createFolder(db, user.id));
    const paused = createFolder(db, user.id, { isPaused: true, pauseReason: "user" });
    const ids = mine.map((folder) => String(folder.id));

    expect(checkFolderSelection(user.id, [])).toEqual({
      ok: false,
      error: "Please select at least one folder",
    });
    for (const bad of [["abc"], ["0"], ["-3"], ["1.5"], [String(theirs.id)], ["999999"]]) {
      expect(checkFolderSelection(user.id, bad)).toEqual({ ok: false, error: "Invalid folder ID" });
    }
    expect(checkFolderSelection(user.id, ids)).toEqual({
      ok: false,
      error: "Maximum 10 folders allowed",
    });
    expect(checkFolderSelection(user.id, [ids[0], String(paused.id)])).toEqual({
      ok: false,
      error: "1 paused folder(s) cannot be selected",
    });
    expect(checkFolderSelection(user.id, [ids[0], ids[0], ids[1]])).toEqual({
      ok: true,
      folderIds: [mine[0]!.id, mine[1]!.id],
    });
    const all = selectAll(user.id);
    expect(all.folderIds).toHaveLength(10);
    expect(all.pausedSkipped).toBe(1);
    expect(all.truncated).toBe(true);
  });
});

describe("finishing a draft", () => {
  test("a link goes to every chosen folder at once", async () => {
    const user = createUser(db);
    const targets = [
      createFolder(db, user.id),
      createFolder(db, user.id),
      createFolder(db, user.id),
    ];
    const draft = await createDraft(
      user.id,
      "link",
      { ...uploadFields, type: "link", urls: ["https://example.com/"] } as DraftFields,
      [],
    );
    setDraftFolders(
      user.id,
      draft.id,
      targets.map((folder) => folder.id),
    );
    const result = await finishDraft(user.id, draft.id, { onlyValid: false });
    expect(result.added.map((folder) => folder.id)).toEqual(targets.map((folder) => folder.id));
    for (const folder of targets) {
      expect(itemsIn(folder.id).map((item) => [item.type, item.urls])).toEqual([
        ["link", ["https://example.com/"]],
      ]);
    }
  });

  test("a full folder is reported and kept in the draft; the others get the photos", async () => {
    const user = createUser(db);
    const [a, full, c] = [
      createFolder(db, user.id),
      createFolder(db, user.id),
      createFolder(db, user.id),
    ];
    db.insert(contentItems)
      .values({ folderId: full.id, type: "file", title: "big", fileSizes: [20 * MB - 100] })
      .run();
    const draft = await createDraft(user.id, "photo", uploadFields, [await storedPhoto(1000)]);
    setDraftFolders(user.id, draft.id, [a.id, full.id, c.id]);

    const validation = validateDraft(user.id, getDraft(user.id, draft.id));
    expect(validation.userValidation).toEqual({ canUpload: true, reason: null });
    expect(validation.folderValidations.map((folder) => folder.canAccept)).toEqual([
      true,
      false,
      true,
    ]);
    expect(validation.folderValidations[1]).toMatchObject({
      currentSize: 20 * MB - 100,
      maxSize: 20 * MB,
      sizeAfterUpload: 20 * MB + 900,
    });

    const result = await finishDraft(user.id, draft.id, { onlyValid: true });
    expect(result.added.map((folder) => folder.id)).toEqual([a.id, c.id]);
    expect(result.refused.map((folder) => folder.id)).toEqual([full.id]);
    expect(getDraft(user.id, draft.id).folderIds).toEqual([full.id]);
    await expect(finishDraft(user.id, draft.id, { onlyValid: true })).rejects.toThrow(
      NO_VALID_FOLDERS,
    );
    // Skipping the check still re-checks the quota when writing.
    const skipped = await finishDraft(user.id, draft.id, { onlyValid: false });
    expect(skipped.added).toEqual([]);
    expect(skipped.refused[0]!.reason).toMatch(/This folder holds/);
    expect(itemsIn(full.id)).toHaveLength(1);
  });

  test("another user's draft is not found and stays as it was", async () => {
    const owner = createUser(db);
    const stranger = createUser(db);
    const folder = createFolder(db, owner.id);
    const photo = await storedPhoto(100);
    const draft = await createDraft(owner.id, "photo", uploadFields, [photo]);
    setDraftFolders(owner.id, draft.id, [folder.id]);
    expect(() => getDraft(stranger.id, draft.id)).toThrow(DraftNotFoundError);
    expect(() => setDraftFolders(stranger.id, draft.id, [])).toThrow(DraftNotFoundError);
    await expect(finishDraft(stranger.id, draft.id, { onlyValid: true })).rejects.toThrow(
      DraftNotFoundError,
    );
    await discardDraft(stranger.id, draft.id);
    expect(getDraft(owner.id, draft.id).folderIds).toEqual([folder.id]);
    expect(await exists(photo.key)).toBe(true);
    expect(itemsIn(folder.id)).toEqual([]);
  });

  test("a photo draft without files cannot finish", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const draft = await createDraft(user.id, "photo", uploadFields, []);
    setDraftFolders(user.id, draft.id, [folder.id]);
    await expect(finishDraft(user.id, draft.id, { onlyValid: true })).rejects.toThrow(
      new DraftRuleError("Please select at least one photo"),
    );
  });
});

describe("drafts count against the storage limit", () => {
  const sized = (size: number): DraftFile => ({
    key: crypto.randomBytes(16).toString("hex"),
    name: "big.pdf",
    size,
    mimeType: "application/pdf",
  });

  test("a draft that would pass the free 50 MB is refused; finishing one counts it once", async () => {
    const user = createUser(db);
    for (const size of [15 * MB, 15 * MB]) {
      db.insert(contentItems)
        .values({
          folderId: createFolder(db, user.id).id,
          type: "file",
          title: "f",
          fileSizes: [size],
        })
        .run();
    }
    const kept = await createDraft(user.id, "file", uploadFields, [sized(15 * MB)]);
    await expect(createDraft(user.id, "file", uploadFields, [sized(6 * MB)])).rejects.toThrow(
      QuotaExceededError,
    );
    await expect(
      updateDraftContent(user.id, kept.id, uploadFields, [sized(21 * MB)]),
    ).rejects.toThrow(QuotaExceededError);
    expect(db.select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all()).toEqual([
      expect.objectContaining({ id: kept.id, files: [expect.objectContaining({ size: 15 * MB })] }),
    ]);
    // Text drafts hold no files and are never refused for storage.
    await createDraft(
      user.id,
      "link",
      { ...uploadFields, type: "link", urls: ["https://example.com/"] } as DraftFields,
      [],
    );

    const target = createFolder(db, user.id);
    setDraftFolders(user.id, kept.id, [target.id]);
    expect(validateDraft(user.id, getDraft(user.id, kept.id)).userValidation.canUpload).toBe(true);
    const result = await finishDraft(user.id, kept.id, { onlyValid: true });
    expect(result).toMatchObject({ added: [{ id: target.id }], refused: [], finished: true });
  });
});

describe("draft lifetime", () => {
  test("drafts expire after 24 hours with their files; the sweep keeps live drafts' files", async () => {
    const user = createUser(db);
    const old = await storedPhoto(10);
    const live = await storedPhoto(10);
    const yesterday = new Date(Date.now() - 25 * 60 * 60 * 1000);
    const expired = await createDraft(user.id, "photo", uploadFields, [old], yesterday);
    expect(() => getDraft(user.id, expired.id)).toThrow(DraftNotFoundError);
    expect(await expireDrafts()).toBe(1);
    expect(db.select().from(uploadDrafts).where(eq(uploadDrafts.id, expired.id)).get()).toBe(
      undefined,
    );
    expect(await exists(old.key)).toBe(false);

    const current = await createDraft(user.id, "photo", uploadFields, [live]);
    const file = path.join(storageDir, live.key.slice(0, 2), live.key);
    fs.utimesSync(file, yesterday, yesterday);
    await sweepOrphanFiles();
    expect(await exists(live.key)).toBe(true);
    expect(getDraft(user.id, current.id).id).toBe(current.id);
  });

  test("a user keeps at most three drafts", async () => {
    const user = createUser(db);
    const photos = [];
    for (let index = 0; index < 4; index += 1) {
      const photo = await storedPhoto(10);
      photos.push(photo);
      await createDraft(user.id, "photo", uploadFields, [photo], new Date(Date.now() + index));
    }
    expect(
      db.select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all(),
    ).toHaveLength(3);
    expect(await exists(photos[0]!.key)).toBe(false);
    expect(await exists(photos[3]!.key)).toBe(true);
  });
});
