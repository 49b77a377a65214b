import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { LocalDiskStorage } from "./local-disk";

let root: string;
let store: LocalDiskStorage;
let counter = 0;

beforeEach(() => {
  counter += 1;
  root = path.join(process.env.STORAGE_DIR!, `local-disk-${counter}`);
  store = new LocalDiskStorage(root);
});

async function* chunks(...parts: (string | Uint8Array)[]) {
  for (const part of parts) yield typeof part === "string" ? Buffer.from(part) : part;
}

async function readAll(stream: NodeJS.ReadableStream) {
  const buffers: Buffer[] = [];
  for await (const chunk of stream) buffers.push(chunk as Buffer);
  return Buffer.concat(buffers);
}

/** Every file under the root, partial ones included. */
function filesOnDisk() {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

async function listed() {
  const keys: string[] = [];
  for await (const key of store.list()) keys.push(key);
  return keys.sort();
}

describe("LocalDiskStorage", () => {
  // What every backend promises is in storage.contract.test.ts; here, the disk's own layout.
  test("a file lives in its shard folder under its key, and nothing else is written", async () => {
    const { key } = await store.put(chunks("hello ", "world"));
    expect(filesOnDisk()).toEqual([path.join(key.slice(0, 2), key)]);
    expect(await listed()).toEqual([key]);
  });

  test("hostile keys never reach the filesystem", async () => {
    // A file just outside the root, where a traversal would land.
    fs.mkdirSync(root, { recursive: true });
    const victim = path.join(path.dirname(root), "victim");
    fs.writeFileSync(victim, "secret");
    const { key } = await store.put(chunks("kept"));

    const hostile = [
      "../../etc/passwd",
      "../victim",
      "..%2f..%2fvictim",
      "a\\b",
      "abc\u0000",
      `${key}\u0000`,
      `${key.slice(0, 2)}/${key}`,
      key.toUpperCase(),
      `${key}.partial`,
      ` ${key}`,
      "",
      key.slice(0, 31),
      `${key}0`,
    ];
    for (const bad of hostile) {
      expect(await store.get(bad), bad).toBeNull();
      expect(await store.stat(bad), bad).toBeNull();
      await store.delete(bad);
    }
    expect(fs.readFileSync(victim, "utf8")).toBe("secret");
    expect((await readAll((await store.get(key))!)).toString()).toBe("kept");
    fs.rmSync(victim);
  });

  test("list skips partial files and stray names; removeIncomplete sweeps old partials", async () => {
    const { key } = await store.put(chunks("done"));
    const shard = path.join(root, "ab");
    fs.mkdirSync(shard, { recursive: true });
    const oldPartial = path.join(shard, `ab${"0".repeat(30)}.partial`);
    const youngPartial = path.join(shard, `ab${"1".repeat(30)}.partial`);
    fs.writeFileSync(oldPartial, "half");
    fs.writeFileSync(youngPartial, "half");
    fs.writeFileSync(path.join(shard, "notes.txt"), "stray");
    fs.writeFileSync(path.join(shard, `cd${"0".repeat(30)}`), "wrong shard");
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(oldPartial, twoHoursAgo, twoHoursAgo);

    expect(await listed()).toEqual([key]);
    expect(await store.removeIncomplete(60 * 60 * 1000)).toBe(1);
    expect(fs.existsSync(oldPartial)).toBe(false);
    expect(fs.existsSync(youngPartial)).toBe(true);
  });

  test("a missing root lists nothing", async () => {
    expect(await listed()).toEqual([]);
    expect(await store.removeIncomplete(0)).toBe(0);
  });
});
