import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { contentItems, folders } from "#db/schema";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import { FolderSchema } from "./folder-validation";
import {
  createFolder as createFolderFor,
  deleteFolder,
  FolderNotFoundError,
  updateFolder,
} from "./folders.server";

async function storedFile(text: string) {
  return (
    await storage.put(
      (async function* () {
        yield Buffer.from(text);
      })(),
    )
  ).key;
}

describe("deleteFolder", () => {
  test("removes the folder, its items and the files only they used", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const other = createFolder(db, user.id, { name: "Book club" });
    const photo = await storedFile("photo");
    const thumbnail = await storedFile("thumbnail");
    const preview = await storedFile("preview image");
    const shared = await storedFile("one upload in two folders");
    createItem(db, folder.id, { type: "photo", filePaths: [photo], thumbnailPaths: [thumbnail] });
    createItem(db, folder.id, {
      type: "link",
      urls: ["https://example.com"],
      previewImageKey: preview,
    });
    createItem(db, folder.id, { type: "file", filePaths: [shared] });
    createItem(db, other.id, { type: "file", filePaths: [shared] });

    await deleteFolder(user.id, folder.id);

    expect(db.select().from(folders).where(eq(folders.id, folder.id)).get()).toBeUndefined();
    expect(
      db.select().from(contentItems).where(eq(contentItems.folderId, folder.id)).all(),
    ).toEqual([]);
    for (const key of [photo, thumbnail, preview]) expect(await storage.stat(key)).toBeNull();
    expect(await storage.stat(shared)).not.toBeNull();
  });

  test("another sender's folder is not found and keeps its files", async () => {
    const owner = createUser(db);
    const stranger = createUser(db);
    const folder = createFolder(db, owner.id);
    const file = await storedFile("the owner's file");
    createItem(db, folder.id, { type: "file", filePaths: [file] });

    await expect(deleteFolder(stranger.id, folder.id)).rejects.toBeInstanceOf(FolderNotFoundError);
    expect(db.select().from(folders).where(eq(folders.id, folder.id)).get()).toBeDefined();
    expect(await storage.stat(file)).not.toBeNull();
  });
});

describe("how answers reach the sender by e-mail", () => {
  test("a new folder gathers them daily; the sender's choice is saved", () => {
    const user = createUser(db);
    const details = {
      name: "Family",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
    };
    const folder = createFolderFor(user.id, FolderSchema.parse(details));
    expect(folder.answerEmails).toBe("daily");
    const updated = updateFolder(
      user.id,
      folder.id,
      FolderSchema.parse({ ...details, answerEmails: "each" }),
    );
    expect(updated.answerEmails).toBe("each");
    expect(db.select().from(folders).where(eq(folders.id, folder.id)).get()?.answerEmails).toBe(
      "each",
    );
  });
});
