import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, test } from "vitest";
import { LocalDiskStorage } from "./local-disk";
import { FileTooLargeError } from "./storage";

const MB = 1024 * 1024;
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
  test("put, stat, get, list and delete round trip", async () => {
    const { key, size } = await store.put(chunks("hello ", "world"));
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(size).toBe(11);
    expect(filesOnDisk()).toEqual([path.join(key.slice(0, 2), key)]);

    const stat = await store.stat(key);
    expect(stat?.size).toBe(11);
    expect(stat?.modifiedAt).toBeInstanceOf(Date);

    const stream = await store.get(key);
    expect(stream).not.toBeNull();
    expect((await readAll(stream!)).toString()).toBe("hello world");
    expect(await listed()).toEqual([key]);

    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await store.stat(key)).toBeNull();
    expect(await listed()).toEqual([]);
    await store.delete(key); // deleting twice is fine
  });

  test("keys are random and never derived from the content", async () => {
    const a = await store.put(chunks("same"));
    const b = await store.put(chunks("same"));
    expect(a.key).not.toBe(b.key);
    expect(await listed()).toEqual([a.key, b.key].sort());
  });

  test("an empty source stores an empty file", async () => {
    const { key, size } = await store.put(chunks());
    expect(size).toBe(0);
    expect((await readAll((await store.get(key))!)).length).toBe(0);
  });

  test("maxBytes stops reading early and leaves nothing behind", async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024);
    async function* fiftyMegabytes() {
      for (let i = 0; i < (50 * MB) / chunk.length; i += 1) {
        pulled += chunk.length;
        yield chunk;
      }
    }
    await expect(store.put(fiftyMegabytes(), { maxBytes: 10 * MB })).rejects.toBeInstanceOf(
      FileTooLargeError,
    );
    expect(pulled).toBeGreaterThan(10 * MB);
    expect(pulled).toBeLessThan(11 * MB);
    expect(filesOnDisk()).toEqual([]);
    expect(await listed()).toEqual([]);
  });

  test("exactly maxBytes is allowed", async () => {
    const { size } = await store.put(chunks(new Uint8Array(1000)), { maxBytes: 1000 });
    expect(size).toBe(1000);
  });

  test("the error names the limit", async () => {
    const error = await store
      .put(chunks(new Uint8Array(11)), { maxBytes: 10 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect((error as FileTooLargeError).maxBytes).toBe(10);
  });

  test("a source that fails mid-way leaves no partial file", async () => {
    async function* failing() {
      yield new Uint8Array(256 * 1024);
      yield new Uint8Array(256 * 1024);
      throw new Error("connection reset");
    }
    await expect(store.put(failing())).rejects.toThrow("connection reset");
    expect(filesOnDisk()).toEqual([]);
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
