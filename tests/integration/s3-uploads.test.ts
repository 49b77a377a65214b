import fs from "node:fs";
import { Readable } from "node:stream";
import { paginateListObjectsV2, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { startS3Server } from "../support/s3-server";

/**
 * The app with S3_BUCKET set: uploads, the one copy shared by several
 * folders, deletion and the orphan sweep go to the bucket (a real S3 server
 * on loopback), and nothing to STORAGE_DIR. The modules are imported after the
 * settings are in place, as the server reads them at start.
 */
const s3 = await startS3Server("thoughtfully-uploads");
Object.assign(process.env, s3.env);

const [{ db }, { contentItems }, { storage }, uploads, storedFiles, { eq }] = await Promise.all([
  import("~/platform/db.server"),
  import("#db/schema"),
  import("~/platform/storage.server"),
  import("~/modules/uploads/uploads.server"),
  import("~/modules/files/stored-files.server"),
  import("drizzle-orm"),
]);

const { accessKeyId, secretAccessKey, ...clientSettings } = s3.settings;
const admin = new S3Client({ ...clientSettings, credentials: { accessKeyId, secretAccessKey } });

async function objectsInBucket() {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2(
    { client: admin },
    { Bucket: s3.settings.bucket },
  )) {
    for (const object of page.Contents ?? []) keys.push(object.Key!);
  }
  return keys.sort();
}

function filesUnderStorageDir() {
  const root = process.env.STORAGE_DIR!;
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true }).map(String);
}

async function readAll(stream: NodeJS.ReadableStream) {
  const buffers: Buffer[] = [];
  for await (const chunk of stream) buffers.push(chunk as Buffer);
  return Buffer.concat(buffers);
}

const pdf = Buffer.from("%PDF-1.4\n1 0 obj\n<< >>\nendobj\ntrailer\n<< >>\n%%EOF");

function pdfUpload() {
  const form = new FormData();
  form.append("files", new File([new Uint8Array(pdf)], "notes.pdf", { type: "application/pdf" }));
  return new Request("http://localhost/folders/1/add/file", {
    method: "POST",
    body: form,
    headers: { "user-agent": "vitest" },
  });
}

let userId: number;

beforeAll(() => {
  userId = createUser(db).id;
});

afterAll(async () => {
  admin.destroy();
  await s3.close();
});

describe("uploads on S3 (S3_BUCKET set)", () => {
  test("the store is the bucket (behind the disk's reserve, app/platform/storage.server.ts)", async () => {
    const { key } = await storage.put(Readable.from([pdf]));
    expect(await objectsInBucket()).toContain(key);
    const listed: string[] = [];
    for await (const listedKey of storage.list()) listed.push(listedKey);
    expect(listed.sort()).toEqual(await objectsInBucket());
    await storage.delete(key);
    expect(await objectsInBucket()).not.toContain(key);
  });

  test("an upload lands in the bucket, not on disk, and reads back byte for byte", async () => {
    const { stored } = await uploads.parseUploadForm(pdfUpload(), "file", userId);
    const [upload] = stored;
    expect(upload?.size).toBe(pdf.length);
    expect(await objectsInBucket()).toContain(upload!.key);
    expect(filesUnderStorageDir()).toEqual([]);
    expect(await readAll((await storage.get(upload!.key))!)).toEqual(pdf);
    await storedFiles.deleteStoredFiles([upload!.key]);
    expect(await objectsInBucket()).not.toContain(upload!.key);
  });

  test("one object shared by two folders' items goes only when the last item does", async () => {
    const { key } = await storage.put(
      (async function* () {
        yield pdf;
      })(),
    );
    const [first, second] = ["A", "B"].map((name) =>
      createFolder(db, userId, { name, recipients: [] }),
    );
    const items = [first!, second!].map((folder) =>
      createItem(db, folder.id, {
        type: "file",
        title: "shared",
        filePaths: [key],
        fileSizes: [pdf.length],
      }),
    );

    db.delete(contentItems).where(eq(contentItems.id, items[0]!.id)).run();
    expect(await storedFiles.releaseFiles([key])).toEqual([]);
    expect(await objectsInBucket()).toContain(key);

    db.delete(contentItems).where(eq(contentItems.id, items[1]!.id)).run();
    expect(await storedFiles.releaseFiles([key])).toEqual([key]);
    expect(await objectsInBucket()).not.toContain(key);
  });

  test("the orphan sweep removes unreferenced objects once old enough, and keeps the rest", async () => {
    const put = async () =>
      (
        await storage.put(
          (async function* () {
            yield pdf;
          })(),
        )
      ).key;
    const referenced = await put();
    const orphan = await put();
    // Just stored: an upload may still be writing its row.
    expect(await storedFiles.removeOrphanFiles(new Set([referenced]))).toBe(0);
    expect(await objectsInBucket()).toEqual(expect.arrayContaining([referenced, orphan]));
    // Bucket objects cannot be back-dated (their times are whole seconds): the clock moves on.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1_100 });
    try {
      expect(await storedFiles.removeOrphanFiles(new Set([referenced]), 0)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
    const left = await objectsInBucket();
    expect(left).toContain(referenced);
    expect(left).not.toContain(orphan);
  });
});
