import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { storage } from "~/platform/storage.server";
import { itemFileKeys, removeOrphanFiles } from "./stored-files.server";

const storageDir = process.env.STORAGE_DIR!;

function pathOfKey(key: string) {
  return path.join(storageDir, key.slice(0, 2), key);
}

describe("removeOrphanFiles", () => {
  async function put(text: string) {
    return (
      await storage.put(
        (async function* () {
          yield Buffer.from(text);
        })(),
      )
    ).key;
  }

  function age(key: string, ms: number) {
    const when = new Date(Date.now() - ms);
    fs.utimesSync(pathOfKey(key), when, when);
  }

  test("deletes old unreferenced files and keeps referenced and young ones", async () => {
    const referenced = await put("in a row");
    const orphan = await put("nobody's");
    const young = await put("upload in flight");
    age(referenced, 2 * 60 * 60 * 1000);
    age(orphan, 2 * 60 * 60 * 1000);
    age(young, 5 * 60 * 1000);

    expect(await removeOrphanFiles(new Set([referenced]))).toBe(1);
    expect(await storage.stat(referenced)).not.toBeNull();
    expect(await storage.stat(orphan)).toBeNull();
    expect(await storage.stat(young)).not.toBeNull();

    expect(await removeOrphanFiles(new Set([referenced]), 60 * 1000)).toBe(1);
    expect(await storage.stat(young)).toBeNull();
  });
});

describe("itemFileKeys", () => {
  test("lists an item's files, their thumbnails and its preview picture, without the empty ones", () => {
    expect(
      itemFileKeys({
        filePaths: ["u/a.jpg", "u/b.pdf"],
        thumbnailPaths: ["u/a-thumb.jpg", ""],
        previewImageKey: "u/preview.jpg",
      }),
    ).toEqual(["u/a.jpg", "u/b.pdf", "u/a-thumb.jpg", "u/preview.jpg"]);
    expect(itemFileKeys({ filePaths: [], thumbnailPaths: [], previewImageKey: null })).toEqual([]);
  });
});
