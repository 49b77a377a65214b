import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { db } from "#db/client.server";
import { contentItems, folders, users } from "#db/schema";
import { storage } from "#storage/index";
import { env } from "./env.server";
import { sweepOrphanFiles } from "./maintenance.server";

async function store(text: string) {
  const { key } = await storage.put(
    (async function* () {
      yield new TextEncoder().encode(text);
    })(),
  );
  return key;
}

function age(key: string, hours: number) {
  const file = path.join(env.STORAGE_DIR, key.slice(0, 2), key);
  const then = new Date(Date.now() - hours * 3600_000);
  fs.utimesSync(file, then, then);
}

test("removes old files no item refers to and keeps the rest", async () => {
  const user = db.insert(users).values({ email: "sweep@example.com" }).returning().get();
  const folder = db
    .insert(folders)
    .values({ userId: user.id, name: "F", recipients: [] })
    .returning()
    .get();
  const used = await store("used");
  const thumb = await store("thumb");
  const orphan = await store("orphan");
  const young = await store("young");
  db.insert(contentItems)
    .values({
      folderId: folder.id,
      type: "photo",
      title: "p",
      filePaths: [used],
      thumbnailPaths: [thumb],
      fileSizes: [4],
    })
    .run();
  for (const key of [used, thumb, orphan]) age(key, 2);

  expect(await sweepOrphanFiles()).toBe(1);
  expect(await storage.stat(orphan)).toBeNull();
  for (const key of [used, thumb, young]) expect(await storage.stat(key)).not.toBeNull();
});

test("removes the files of a sent item that a crash kept from being released", async () => {
  const user = db.insert(users).values({ email: "sweep-sent@example.com" }).returning().get();
  const folder = db
    .insert(folders)
    .values({ userId: user.id, name: "F", recipients: [] })
    .returning()
    .get();
  const sent = await store("sent");
  db.insert(contentItems)
    .values({
      folderId: folder.id,
      type: "file",
      title: "f",
      filePaths: [sent],
      thumbnailPaths: [""],
      fileSizes: [4],
      sentAt: new Date(),
    })
    .run();
  age(sent, 2);

  expect(await sweepOrphanFiles()).toBe(1);
  expect(await storage.stat(sent)).toBeNull();
});
