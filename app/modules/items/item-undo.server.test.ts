import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { contentItems, deletedItems } from "#db/schema";
import { db } from "~/platform/db.server";
import { ItemNotFoundError } from "./item-rules.server";
import {
  deleteItemUndoably,
  purgeExpiredDeletions,
  restoreDeletedItem,
  UNDO_WINDOW_MS,
  undoableFileKeys,
} from "./item-undo.server";

let counter = 0;

function senderWithItem() {
  counter += 1;
  const user = createUser(db);
  const folder = createFolder(db, user.id);
  const item = createItem(db, folder.id, {
    type: "file",
    title: "Minutes",
    filePaths: [`key-${counter}`],
    fileNames: ["minutes.pdf"],
    fileSizes: [10],
    sortOrder: 3,
  });
  return { user, folder, item };
}

const itemRow = (id: number) => db.select().from(contentItems).where(eq(contentItems.id, id)).get();

describe("item deletion with undo", () => {
  test("a deleted item comes back whole, in its place, within the window", () => {
    const { user, folder, item } = senderWithItem();
    const deletedAt = new Date("2026-11-23T10:00:00Z");
    deleteItemUndoably(user.id, item.id, deletedAt);
    expect(itemRow(item.id)).toBeUndefined();
    expect(undoableFileKeys()).toContain(item.filePaths[0]);

    const restored = restoreDeletedItem(
      user.id,
      folder.id,
      item.id,
      new Date(deletedAt.getTime() + UNDO_WINDOW_MS - 1000),
    );
    expect(restored?.title).toBe("Minutes");
    expect(itemRow(item.id)).toEqual(item);
    expect(undoableFileKeys()).not.toContain(item.filePaths[0]);
  });

  test("after the window, or for another sender, there is nothing to restore", () => {
    const { user, folder, item } = senderWithItem();
    const stranger = senderWithItem().user;
    const deletedAt = new Date("2026-11-23T10:00:00Z");
    deleteItemUndoably(user.id, item.id, deletedAt);
    expect(restoreDeletedItem(stranger.id, folder.id, item.id, deletedAt)).toBeNull();
    const late = new Date(deletedAt.getTime() + UNDO_WINDOW_MS);
    expect(restoreDeletedItem(user.id, folder.id, item.id, late)).toBeNull();
    expect(itemRow(item.id)).toBeUndefined();
  });

  test("another sender's item cannot be deleted", () => {
    const { item } = senderWithItem();
    const stranger = senderWithItem().user;
    expect(() => deleteItemUndoably(stranger.id, item.id)).toThrow(ItemNotFoundError);
    expect(itemRow(item.id)).toBeDefined();
  });

  test("expired deletions are forgotten, so their files can go", async () => {
    const { user, item } = senderWithItem();
    const deletedAt = new Date(Date.now() - UNDO_WINDOW_MS - 1000);
    deleteItemUndoably(user.id, item.id, deletedAt);
    await purgeExpiredDeletions();
    expect(
      db.select().from(deletedItems).where(eq(deletedItems.itemId, item.id)).get(),
    ).toBeUndefined();
    expect(undoableFileKeys()).not.toContain(item.filePaths[0]);
  });
});
