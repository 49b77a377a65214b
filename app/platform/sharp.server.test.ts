import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { waitUntil } from "#tests/support/integration";
import { memoryBudget } from "./memory-budget.server";
import {
  decodeCeilingBytes,
  decodeChargeBytes,
  sharpDecodeCost,
  withDecodeRoom,
} from "./sharp.server";

const MiB = 1024 * 1024;

describe("withDecodeRoom", () => {
  test("one decode at a time: the next starts when the one before ends", async () => {
    let release!: () => void;
    const first = withDecodeRoom(
      "first",
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    let secondStarted = false;
    const second = withDecodeRoom("second", async () => {
      secondStarted = true;
    });
    await waitUntil(() => release !== undefined, 1_000, "the first decode started");
    // The second is queued behind the first for as long as the first runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondStarted).toBe(false);
    release();
    await Promise.all([first, second]);
    expect(secondStarted).toBe(true);
  });

  test("charges its estimate while it runs, at most half the budget, and gives it back however it ends", async () => {
    const before = memoryBudget.usedBytes;
    await withDecodeRoom("small", async (room) => {
      await room.charge(3 * MiB);
      await room.charge(2 * MiB);
      expect(memoryBudget.usedBytes - before).toBe(5 * MiB);
    });
    expect(memoryBudget.usedBytes).toBe(before);
    await expect(
      withDecodeRoom("large", async (room) => {
        await room.charge(10 * memoryBudget.capacityBytes);
        expect(memoryBudget.usedBytes - before).toBe(Math.floor(memoryBudget.capacityBytes / 2));
        throw new Error("the decode failed");
      }),
    ).rejects.toThrow("the decode failed");
    expect(memoryBudget.usedBytes).toBe(before);
  });
});

describe("what a decode is charged", () => {
  test("its estimate up to half the budget; one decode at most twice the budget", () => {
    expect(decodeChargeBytes(10 * MiB, 76 * MiB)).toBe(10 * MiB);
    expect(decodeChargeBytes(400 * MiB, 76 * MiB)).toBe(38 * MiB);
    expect(decodeCeilingBytes(76 * MiB)).toBe(152 * MiB);
  });

  test("a format's cost a pixel is read from its header", async () => {
    const picture = sharp({ create: { width: 64, height: 48, channels: 3, background: "#abc" } });
    const costOf = async (bytes: Promise<Buffer>) =>
      sharpDecodeCost(await sharp(await bytes).metadata());
    expect(await costOf(picture.clone().jpeg().toBuffer())).toEqual({
      bytesPerPixel: 1,
      name: "JPEG",
    });
    expect(await costOf(picture.clone().jpeg({ progressive: true }).toBuffer())).toEqual({
      bytesPerPixel: 4,
      name: "progressive JPEG",
    });
    expect(
      await costOf(
        picture.clone().jpeg({ progressive: true, chromaSubsampling: "4:4:4" }).toBuffer(),
      ),
    ).toEqual({ bytesPerPixel: 7, name: "progressive JPEG" });
    expect(await costOf(picture.clone().png().toBuffer())).toEqual({
      bytesPerPixel: 2,
      name: "PNG",
    });
    expect(await costOf(picture.clone().png({ progressive: true }).toBuffer())).toEqual({
      bytesPerPixel: 5,
      name: "interlaced PNG",
    });
    expect(await costOf(picture.clone().gif().toBuffer())).toEqual({
      bytesPerPixel: 7,
      name: "GIF",
    });
    expect(await costOf(picture.clone().avif({ effort: 0 }).toBuffer())).toEqual({
      bytesPerPixel: 20,
      name: "AVIF",
    });
  });
});
