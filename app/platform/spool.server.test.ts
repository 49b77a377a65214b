import fs from "node:fs";
import { expect, test } from "vitest";
import { SpoolTooLargeError, spooledBytes, spoolToFile } from "./spool.server";

async function* chunks(count: number, size: number) {
  for (let index = 0; index < count; index++) yield new Uint8Array(size).fill(index);
}

async function* failing() {
  yield new Uint8Array(10);
  throw new Error("the connection dropped");
}

test("a spooled file holds the bytes, counts them on disk, and is removed with its count", async () => {
  const file = await spoolToFile(chunks(4, 1000), { maxBytes: 4000 });
  expect(file.size).toBe(4000);
  expect(fs.readFileSync(file.path)).toHaveLength(4000);
  expect(spooledBytes()).toBe(4000);
  await file.remove();
  await file.remove();
  expect(fs.existsSync(file.path)).toBe(false);
  expect(spooledBytes()).toBe(0);
});

test("too many bytes, or a source that fails, leave no file and no count behind", async () => {
  await expect(spoolToFile(chunks(5, 1000), { maxBytes: 4000 })).rejects.toBeInstanceOf(
    SpoolTooLargeError,
  );
  await expect(spoolToFile(failing(), { maxBytes: 4000 })).rejects.toThrow("dropped");
  expect(spooledBytes()).toBe(0);
});
