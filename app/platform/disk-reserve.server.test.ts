import { afterEach, expect, test, vi } from "vitest";
import {
  DiskReserveReachedError,
  type DiskRoom,
  diskRoom,
  READ_AGAIN_EVERY_BYTES,
  RESERVE_BYTES,
  withinDiskReserve,
} from "./disk-reserve.server";

const KB = 1024;
const MB = 1024 * KB;

afterEach(() => {
  vi.restoreAllMocks();
});

/** `count` chunks of `size` bytes. */
async function* chunks(count: number, size: number) {
  for (let i = 0; i < count; i++) yield new Uint8Array(size);
}

/** A volume of `freeBytes` with a 10 MB reserve that loses the bytes written, as a disk would; its readings counted. */
function volume(freeBytes: number) {
  const disk = { free: freeBytes, readings: 0 };
  const read = (): DiskRoom => {
    disk.readings += 1;
    return { freeBytes: disk.free, reserveBytes: 10 * MB, state: "kept" };
  };
  async function write(source: AsyncIterable<Uint8Array>) {
    for await (const chunk of withinDiskReserve(source, read)) disk.free -= chunk.byteLength;
  }
  return { disk, write };
}

test("a file that fits above the reserve passes whole, the space read again every megabyte", async () => {
  const { disk, write } = volume(20 * MB);
  await write(chunks(64, 64 * KB));
  expect(disk.free).toBe(16 * MB);
  expect(disk.readings).toBe(4);
});

test("a file is stopped before the chunk that would cross the reserve, however large it is", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const { disk, write } = volume(10 * MB + 100 * KB);
  await expect(write(chunks(1000, 64 * KB))).rejects.toBeInstanceOf(DiskReserveReachedError);
  // One chunk of 64 KB fitted in the 100 KB above the reserve; the next would not have.
  expect(disk.free).toBe(10 * MB + 36 * KB);
  expect(String(vi.mocked(console.warn).mock.calls[0]?.[0])).toBe(
    "[disk] a file was not stored: 10.1 MB free on the data volume, 10 MB kept for the database (DISK_RESERVE_MB)",
  );
});

test("below the reserve, nothing is written at all", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const { disk, write } = volume(9 * MB);
  await expect(write(chunks(1, 1))).rejects.toBeInstanceOf(DiskReserveReachedError);
  expect(disk.free).toBe(9 * MB);
});

test("bytes written beside it by others are seen at the next reading", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const { disk } = volume(12 * MB);
  const read = (): DiskRoom => ({ freeBytes: disk.free, reserveBytes: 10 * MB, state: "kept" });
  let written = 0;
  const writing = (async () => {
    for await (const chunk of withinDiskReserve(chunks(100, 64 * KB), read)) {
      written += chunk.byteLength;
      disk.free -= chunk.byteLength;
      // Another upload takes a megabyte once this one has written its first.
      if (written === READ_AGAIN_EVERY_BYTES) disk.free -= MB;
    }
  })();
  await expect(writing).rejects.toBeInstanceOf(DiskReserveReachedError);
  expect(disk.free).toBeGreaterThanOrEqual(10 * MB);
  expect(disk.free).toBeLessThan(10 * MB + 64 * KB);
});

test("a volume that reports no size is not measured, and nothing is stopped", async () => {
  const read = (): DiskRoom => ({ freeBytes: null, reserveBytes: 10 * MB, state: "unmeasured" });
  let written = 0;
  for await (const chunk of withinDiskReserve(chunks(4, MB), read)) written += chunk.byteLength;
  expect(written).toBe(4 * MB);
});

test("this machine's data volume, read with statfs, against the default reserve of 256 MB", () => {
  const room = diskRoom();
  expect(RESERVE_BYTES).toBe(256 * MB);
  expect(room.reserveBytes).toBe(RESERVE_BYTES);
  expect(room.freeBytes).toBeGreaterThan(0);
  expect(room.state).toBe(room.freeBytes! >= RESERVE_BYTES ? "kept" : "in use");
});
