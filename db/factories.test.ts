import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { openDatabase } from "./connection";
import { createFolder, createItem, createUser } from "./factories";
import { DEMO_EMAIL, folderSeeds, seedDemoSender } from "./seed";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-factories-"));
const db = openDatabase(path.join(dir, "app.db"));

afterAll(() => {
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the factories make a verified sender, a folder due in a few days and a musing", () => {
  const user = createUser(db);
  const other = createUser(db);
  expect(user).toMatchObject({ firstName: "Ada", emailVerified: true });
  expect(other.email).not.toBe(user.email);

  const folder = createFolder(db, user.id, { name: "Book club" });
  expect(folder).toMatchObject({ userId: user.id, name: "Book club" });
  expect(folder.nextSendAt!.getTime()).toBeGreaterThan(Date.now());

  const item = createItem(db, folder.id);
  expect(item).toMatchObject({ folderId: folder.id, type: "musing", sentAt: null });
  const link = createItem(db, folder.id, { type: "link", urls: ["https://example.com"] });
  expect(link).toMatchObject({ type: "link", note: null });
  expect(link.title).not.toBe("");
});

test("the demo seed writes through them once", () => {
  const rules = { passwordHash: "hash", nextSendAt: () => new Date(Date.now() + 86_400_000) };
  const seeded = seedDemoSender(db, rules);
  expect(seeded).toMatchObject({ folders: folderSeeds.length, items: 4 });
  expect(seedDemoSender(db, rules)).toBeNull();
  expect(createUser(db).email).not.toBe(DEMO_EMAIL);
});
