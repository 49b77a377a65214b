import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { heicOfSize } from "#tests/support/heic-photos";
import { waitUntil } from "#tests/support/integration";
import { db } from "~/platform/db.server";
import {
  isMemoryBudgetSpent,
  memoryBudget,
  type Reservation,
} from "~/platform/memory-budget.server";
import { withDecodeRoom } from "~/platform/sharp.server";
import { storage } from "~/platform/storage.server";
import { reencodePhoto } from "./photo-processing.server";
import type { UploadContext } from "./upload-kinds";
import { UploadRejectedError } from "./upload-rejected.server";

/**
 * Photos judged from their header and decoded in the decode lane with their
 * estimate charged to the memory budget (docs/decisions/0238-photo-decodes-in-the-budget.md).
 * HEIC photos are decoded on their own thread: `npm run build` first.
 */

let userId: number;
beforeAll(() => {
  userId = createUser(db).id;
});

/** Reservations a test took to fill the budget; given back after each test. */
const held: Reservation[] = [];
afterEach(() => {
  for (const reservation of held.splice(0)) reservation.release();
});

async function* once(bytes: Uint8Array) {
  yield bytes;
}

const TYPES = {
  jpg: "image/jpeg",
  png: "image/png",
  heic: "image/heic",
} as const;

/** The photo stored as the upload pipeline stores an original, and the context of its upload. */
async function storedPhoto(bytes: Buffer, name: string, ext: keyof typeof TYPES) {
  const { key, size } = await storage.put(once(bytes));
  const ctx: UploadContext = { request: new Request("http://localhost/"), userId, stored: [] };
  const original = {
    key,
    name,
    size,
    claimedMimeType: TYPES[ext],
    detected: { ext, mime: TYPES[ext] },
  };
  return { ctx, original };
}

async function reencode(bytes: Buffer, name: string, ext: keyof typeof TYPES) {
  const { ctx, original } = await storedPhoto(bytes, name, ext);
  return reencodePhoto(ctx, original, []);
}

function readKey(key: string) {
  return fs.readFileSync(path.join(process.env.STORAGE_DIR!, key.slice(0, 2), key));
}

async function refusal(promise: Promise<unknown>) {
  const outcome = await promise.then(
    () => new Error("expected a refusal"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(UploadRejectedError);
  return outcome as UploadRejectedError;
}

/** A PNG whose header says `width` × `height`, with one row of data: it cannot be decoded, only judged. */
function pngHeaderOf(width: number, height: number) {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(zlib.crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(Buffer.alloc(10))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A small JPEG whose frame header (SOF0) is made to say `width` × `height`. */
async function jpegHeaderOf(width: number, height: number) {
  const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#c83" } })
    .jpeg()
    .toBuffer();
  const frame = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(height, frame + 5);
  jpeg.writeUInt16BE(width, frame + 7);
  return jpeg;
}

/** The fixture HEIC with its size ('ispe') made `width` × `height`. */
function heicHeaderOf(width: number, height: number) {
  const heic = Buffer.from(fs.readFileSync(path.resolve("tests/fixtures/photo-with-gps.heic")));
  const ispe = heic.indexOf("ispe");
  heic.writeUInt32BE(width, ispe + 8);
  heic.writeUInt32BE(height, ispe + 12);
  return heic;
}

/** Holds the decode lane until `release` is called, as a long decode would. */
async function laneHeld() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = false;
  const holding = withDecodeRoom("a test's decode", async () => {
    entered = true;
    await released;
  });
  await waitUntil(() => entered, 5_000, "the lane entered");
  return async () => {
    release();
    await holding;
  };
}

describe("the pixel limit", () => {
  test("every phone's full-resolution photo is taken: a 44 MP HEIC held upright, a 50 MP JPEG", async () => {
    // 7200 × 6120 stored, turned a quarter (irot) as a phone held upright stores it: 255 of the
    // fixture's tiles, the most sharp's header reader takes (an iPhone's 48 MP photo is 192 of 512 × 512).
    const heic = await reencode(heicOfSize(7200, 6120, 1), "IMG_4801.HEIC", "heic");
    expect(heic).toMatchObject({ name: "IMG_4801.jpg", mimeType: "image/jpeg" });
    expect(await sharp(readKey(heic.key)).metadata()).toMatchObject({
      format: "jpeg",
      width: 1360,
      height: 1600,
    });
    expect(await sharp(readKey(heic.thumbnailKey!)).metadata()).toMatchObject({
      width: 272,
      height: 320,
    });

    // A Pixel's or Galaxy's 50 MP photo, 8160 × 6144.
    const jpeg = await sharp({
      create: { width: 8160, height: 6144, channels: 3, background: "#4a7a9c" },
    })
      .jpeg()
      .toBuffer();
    const taken = await reencode(jpeg, "PXL_0001.jpg", "jpg");
    expect(await sharp(readKey(taken.key)).metadata()).toMatchObject({ width: 1600, height: 1205 });
  });

  test("a photo over 50 megapixels is refused from its header, before its turn to be decoded", async () => {
    const release = await laneHeld();
    try {
      const usedBefore = memoryBudget.usedBytes;
      // A Galaxy Ultra's 200 MP photo, 16320 × 12240, in each format's header.
      for (const [bytes, name, ext] of [
        [pngHeaderOf(16_320, 12_240), "huge.png", "png"],
        [await jpegHeaderOf(16_320, 12_240), "20251201_120000.jpg", "jpg"],
        [heicHeaderOf(16_320, 12_240), "IMG_2042.heic", "heic"],
        // Wide rather than large: a panorama of 60,000 × 1,000.
        [pngHeaderOf(60_000, 1_000), "panorama.png", "png"],
      ] as const) {
        // Answered while another photo holds the lane: judged before it would wait its turn.
        const error = await refusal(reencode(bytes, name, ext));
        expect(error).toMatchObject({
          code: "FILE_TOO_LARGE",
          message: `${name} has too many pixels. Photos can be at most 50 megapixels.`,
        });
        expect(memoryBudget.usedBytes).toBe(usedBefore);
      }
    } finally {
      await release();
    }
  });
});

describe("the day a photo was taken", () => {
  test("comes with the re-encoded photo, which keeps no EXIF of its own", async () => {
    const blank = sharp({ create: { width: 40, height: 30, channels: 3, background: "#c84" } });
    const camera = await blank
      .clone()
      .jpeg()
      .withExif({ IFD2: { DateTimeOriginal: "2019:06:01 10:00:00" } })
      .toBuffer();
    const stored = await reencode(camera, "IMG_2041.jpg", "jpg");
    expect(stored.takenOn).toBe("2019-06-01");
    expect((await sharp(readKey(stored.key)).metadata()).exif).toBeUndefined();

    const drawn = await reencode(await blank.clone().png().toBuffer(), "beach.png", "png");
    expect(drawn).not.toHaveProperty("takenOn");
  });
});

describe("a decode charged to the memory budget", () => {
  test("waits for room like a door: told busy when none comes, decoded when some does", async () => {
    const photo = await sharp({
      create: { width: 2000, height: 1500, channels: 3, background: "#963" },
    })
      .jpeg()
      .toBuffer();
    const fillBudget = (leaving = 0) => {
      const all = memoryBudget.tryReserve(
        memoryBudget.capacityBytes - memoryBudget.usedBytes - leaving,
      );
      expect(all).not.toBeNull();
      held.push(all!);
      return all!;
    };
    /** Someone waits in line for room: a charge larger than a small one is then not served before them. */
    const someoneWaits = () => {
      const probe = memoryBudget.tryReserve(512 * 1024);
      probe?.release();
      return probe === null;
    };

    const full = fillBudget();
    const busy = await reencode(photo, "busy.jpg", "jpg").then(
      () => new Error("expected a busy answer"),
      (error: unknown) => error,
    );
    expect(isMemoryBudgetSpent(busy)).toBe(true);
    full.release();

    // Room for the file's bytes but not for its pixels: the decode waits in line, and goes on
    // once room is made within the 2 s a door waits.
    const filler = fillBudget(1024 * 1024);
    const { ctx, original } = await storedPhoto(photo, "later.jpg", "jpg");
    const reencoding = reencodePhoto(ctx, original, []);
    await waitUntil(someoneWaits, 1_500, "the decode waiting for room");
    filler.release();
    const done = await reencoding;
    expect(await sharp(readKey(done.key)).metadata()).toMatchObject({ width: 1600, height: 1200 });
  });
});
