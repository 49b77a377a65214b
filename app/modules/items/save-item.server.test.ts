import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { contentItems, folders } from "#db/schema";
import { db } from "~/platform/db.server";
import { newOneTimeKey } from "~/platform/one-time-keys.server";
import { ItemNotFoundError, ItemRuleError } from "./item-rules.server";
import { schemaFor } from "./item-validation";
import { saveItem } from "./save-item.server";

const reasons = {
  addComment: "on",
  commentText: "Look at this",
  responseExpectation: "na",
};

/** What a sheet's form sends, parsed as the routes and the API parse it. */
function parsed(type: "link" | "musing" | "photo" | "file" | "video", fields: object) {
  return schemaFor(type).parse({ ...reasons, ...fields });
}

const upload = (name: string, mimeType: string) => ({
  key: `u/${name}`,
  name,
  size: 1000,
  mimeType,
});

function rowsIn(folderId: number) {
  return db.select().from(contentItems).where(eq(contentItems.folderId, folderId)).all();
}

describe("saveItem", () => {
  test("adds a link, a musing, photos, a file and a video, each by its type", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const link = await saveItem(
      user.id,
      { folderId: folder.id },
      parsed("link", { title: "A walk", urls: ["https://example.com/walk"] }),
    );
    expect(link.item).toMatchObject({
      type: "link",
      title: "A walk",
      urls: ["https://example.com/walk"],
      commentText: "Look at this",
      previewStatus: "pending",
    });
    expect(link.location).toBe(`/folders/${folder.id}#item-${link.item.id}`);

    const musing = await saveItem(
      user.id,
      { folderId: folder.id },
      parsed("musing", { title: "Thoughts", note: "On Sunday" }),
    );
    expect(musing.item).toMatchObject({ type: "musing", title: "Thoughts", note: "On Sunday" });

    const photos = await saveItem(
      user.id,
      { folderId: folder.id },
      parsed("photo", { title: "Beach" }),
      [upload("a.jpg", "image/jpeg"), upload("b.jpg", "image/jpeg")],
    );
    expect(photos.item).toMatchObject({
      type: "photo",
      title: "Beach",
      filePaths: ["u/a.jpg", "u/b.jpg"],
    });

    const file = await saveItem(
      user.id,
      { folderId: folder.id },
      parsed("file", { title: "Recipe" }),
      [upload("recipe.pdf", "application/pdf")],
    );
    expect(file.item).toMatchObject({ type: "file", fileNames: ["recipe.pdf"] });

    const video = await saveItem(
      user.id,
      { folderId: folder.id },
      parsed("video", { title: "First steps" }),
      [upload("clip.mp4", "video/mp4")],
    );
    expect(video.item).toMatchObject({ type: "video", videoStatus: "preparing" });

    expect(rowsIn(folder.id).map((row) => row.type)).toEqual([
      "link",
      "musing",
      "photo",
      "file",
      "video",
    ]);
  });

  test("edits a link, a musing and an upload, whose new files join the old ones", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const link = createItem(db, folder.id, {
      type: "link",
      title: "Old",
      urls: ["https://example.com/old"],
      addComment: true,
      commentText: "Old comment",
    });
    const musing = createItem(db, folder.id, { type: "musing", title: "Old", note: "Old note" });
    const photo = createItem(db, folder.id, {
      type: "photo",
      title: "Old",
      addComment: true,
      commentText: "Old comment",
      filePaths: ["u/a.jpg"],
      thumbnailPaths: [""],
      fileNames: ["a.jpg"],
      fileSizes: [1000],
      mimeTypes: ["image/jpeg"],
    });

    const editedLink = await saveItem(
      user.id,
      { itemId: link.id },
      parsed("link", { title: "New", urls: ["https://example.com/new"] }),
    );
    expect(editedLink.item).toMatchObject({
      id: link.id,
      title: "New",
      urls: ["https://example.com/new"],
      commentText: "Look at this",
    });
    expect(editedLink.location).toContain(`#item-${link.id}`);

    const editedMusing = await saveItem(
      user.id,
      { itemId: musing.id },
      parsed("musing", { title: "New", note: "New note" }),
    );
    expect(editedMusing.item).toMatchObject({ id: musing.id, title: "New", note: "New note" });

    const editedPhoto = await saveItem(
      user.id,
      { itemId: photo.id },
      parsed("photo", { title: "New" }),
      [upload("b.jpg", "image/jpeg")],
    );
    expect(editedPhoto.item).toMatchObject({
      id: photo.id,
      title: "New",
      filePaths: ["u/a.jpg", "u/b.jpg"],
    });
    expect(rowsIn(folder.id)).toHaveLength(3);
  });

  test("refuses with the items' rules, and saves nothing", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    db.update(folders).set({ isUnsubscribed: true }).where(eq(folders.id, folder.id)).run();
    await expect(
      saveItem(user.id, { folderId: folder.id }, parsed("musing", { title: "T", note: "N" })),
    ).rejects.toThrow(ItemRuleError);
    expect(rowsIn(folder.id)).toEqual([]);

    const other = createFolder(db, createUser(db).id);
    const theirs = createItem(db, other.id, { type: "musing", title: "Theirs", note: "Theirs" });
    await expect(
      saveItem(user.id, { itemId: theirs.id }, parsed("musing", { title: "Mine", note: "Mine" })),
    ).rejects.toThrow(ItemNotFoundError);
    expect(rowsIn(other.id)[0]).toMatchObject({ title: "Theirs" });
  });

  test("a form's one-time key adds once: a repeat leads to the first item and saves nothing", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    const oneTimeKey = newOneTimeKey();
    const input = parsed("musing", { title: "Once", note: "Only once" });
    const first = await saveItem(user.id, { folderId: folder.id, oneTimeKey }, input);
    const repeat = await saveItem(user.id, { folderId: folder.id, oneTimeKey }, input);
    expect(first.item).toMatchObject({ title: "Once" });
    expect(repeat).toEqual({ location: first.location, item: null });
    expect(rowsIn(folder.id)).toHaveLength(1);

    const another = await saveItem(
      user.id,
      { folderId: folder.id, oneTimeKey: newOneTimeKey() },
      input,
    );
    expect(another.item?.id).not.toBe(first.item?.id);
    expect(rowsIn(folder.id)).toHaveLength(2);
  });
});
