import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { CreateBucketCommand, paginateListObjectsV2, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { type S3TestServer, startS3Server } from "#tests/support/s3-server";
import { LocalDiskStorage } from "./local-disk";
import { S3Storage } from "./s3";
import { type FileStorage, FileTooLargeError } from "./storage";

/**
 * What every FileStorage promises its callers (uploads, downloads, the
 * newsletter's attachments, the orphan sweep), run against each backend: the
 * local disk, and S3 through a real S3 server (s3rver) on loopback.
 */
const MB = 1024 * 1024;

type Backend = {
  name: string;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** A fresh, empty store. */
  create(): Promise<FileStorage>;
  /** Everything the backend holds for the last store, whatever its name (leftovers included). */
  rawObjects(): Promise<string[]>;
};

function localDisk(): Backend {
  let root = "";
  let counter = 0;
  return {
    name: "local disk",
    async setUp() {},
    async tearDown() {},
    async create() {
      counter += 1;
      root = path.join(process.env.STORAGE_DIR!, `contract-${counter}`);
      return new LocalDiskStorage(root);
    },
    async rawObjects() {
      if (!fs.existsSync(root)) return [];
      return fs
        .readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    },
  };
}

function s3(): Backend {
  let server: S3TestServer;
  let admin: S3Client;
  let bucket = "";
  let counter = 0;
  return {
    name: "S3 (s3rver on loopback)",
    async setUp() {
      server = await startS3Server();
      const { accessKeyId, secretAccessKey, ...rest } = server.settings;
      admin = new S3Client({ ...rest, credentials: { accessKeyId, secretAccessKey } });
    },
    async tearDown() {
      admin.destroy();
      await server.close();
    },
    async create() {
      counter += 1;
      bucket = `contract-${counter}`;
      await admin.send(new CreateBucketCommand({ Bucket: bucket }));
      return new S3Storage({ ...server.settings, bucket });
    },
    async rawObjects() {
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client: admin }, { Bucket: bucket })) {
        for (const object of page.Contents ?? []) keys.push(object.Key!);
      }
      return keys;
    },
  };
}

async function* chunks(...parts: (string | Uint8Array)[]) {
  for (const part of parts) yield typeof part === "string" ? Buffer.from(part) : part;
}

async function readAll(stream: NodeJS.ReadableStream) {
  const buffers: Buffer[] = [];
  for await (const chunk of stream) buffers.push(chunk as Buffer);
  return Buffer.concat(buffers);
}

describe.each([localDisk(), s3()])("FileStorage contract: $name", (backend) => {
  let store: FileStorage;

  beforeAll(() => backend.setUp());
  afterAll(() => backend.tearDown());
  beforeEach(async () => {
    store = await backend.create();
  });

  async function listed() {
    const keys: string[] = [];
    for await (const key of store.list()) keys.push(key);
    return keys.sort();
  }

  test("put, stat, get, list and delete round trip", async () => {
    const before = Date.now();
    const { key, size } = await store.put(chunks("hello ", "world"));
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(size).toBe(11);

    const stat = await store.stat(key);
    expect(stat?.size).toBe(11);
    // The orphan sweep keeps files younger than an hour by this date.
    expect(stat!.modifiedAt.getTime()).toBeGreaterThan(before - 5_000);
    expect(stat!.modifiedAt.getTime()).toBeLessThan(Date.now() + 5_000);

    expect((await readAll((await store.get(key))!)).toString()).toBe("hello world");
    expect(await listed()).toEqual([key]);

    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    expect(await store.stat(key)).toBeNull();
    expect(await listed()).toEqual([]);
    expect(await backend.rawObjects()).toEqual([]);
    await store.delete(key); // deleting twice is fine
  });

  test("a range reads only its bytes, both ends included (HTTP range requests for videos)", async () => {
    const { key } = await store.put(chunks("0123456789", "abcdefghij"));
    const read = async (start: number, end: number) =>
      (await readAll((await store.get(key, { range: { start, end } }))!)).toString();
    // Not 0-0: s3rver reads an end of 0 as "to the last byte" (real S3 does not).
    expect(await read(0, 1)).toBe("01");
    expect(await read(8, 12)).toBe("89abc");
    expect(await read(15, 19)).toBe("fghij");
    expect(await store.get("0".repeat(32), { range: { start: 0, end: 1 } })).toBeNull();
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
    expect((await store.stat(key))?.size).toBe(0);
    expect((await readAll((await store.get(key))!)).length).toBe(0);
  });

  test("a file larger than one multipart part comes back byte for byte", async () => {
    const parts = Array.from({ length: 12 }, () => crypto.randomBytes(MB));
    const { key, size } = await store.put(chunks(...parts));
    expect(size).toBe(12 * MB);
    expect((await store.stat(key))?.size).toBe(12 * MB);
    const back = await readAll((await store.get(key))!);
    const digest = (buffer: Buffer) => crypto.createHash("sha256").update(buffer).digest("hex");
    expect(digest(back)).toBe(digest(Buffer.concat(parts)));
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
    expect(pulled).toBeLessThan(12 * MB);
    expect(await listed()).toEqual([]);
    expect(await backend.rawObjects()).toEqual([]);
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

  test("a source that fails mid-way leaves nothing behind, past the first part too", async () => {
    async function* failing() {
      for (let i = 0; i < 7; i += 1) yield new Uint8Array(MB);
      throw new Error("connection reset");
    }
    await expect(store.put(failing())).rejects.toThrow("connection reset");
    expect(await listed()).toEqual([]);
    expect(await backend.rawObjects()).toEqual([]);
  });

  test("unknown and malformed keys are null, and deleting them is a no-op", async () => {
    const { key } = await store.put(chunks("kept"));
    const unknown = crypto.randomBytes(16).toString("hex");
    for (const bad of [unknown, "../../etc/passwd", key.toUpperCase(), `${key}0`, "", `a/${key}`]) {
      expect(await store.get(bad), bad).toBeNull();
      expect(await store.stat(bad), bad).toBeNull();
      await store.delete(bad);
    }
    expect((await readAll((await store.get(key))!)).toString()).toBe("kept");
    expect(await listed()).toEqual([key]);
  });
});
