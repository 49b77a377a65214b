import type Sharp from "sharp";
import type { Metadata } from "sharp";
import {
  BUDGET_WAIT_MS,
  MemoryBudgetSpentError,
  memoryBudget,
  type Reservation,
} from "./memory-budget.server";
import { singleton } from "./singleton.server";
import { WorkLane } from "./work-lane.server";

let loaded: Promise<typeof Sharp> | undefined;

/**
 * sharp (libvips), loaded with the first image instead of at start
 * (docs/performance.md, "bench:cold-start"), with one libvips thread and no
 * cache of operations: each picture is read once, and a cache would keep the
 * last decodes' pixels (a progressive JPEG's 240 MB) after they are done.
 * Every decode of someone's picture goes through `withDecodeRoom` below.
 */
export function loadSharp(): Promise<typeof Sharp> {
  loaded ??= import("sharp").then(({ default: sharp }) => {
    sharp.concurrency(1);
    sharp.cache(false);
    return sharp;
  });
  return loaded;
}

/**
 * Image decodes (docs/memory-budget.md, "Work, not a door";
 * docs/decisions/0238-photo-decodes-in-the-budget.md). A decode's memory is
 * native (libvips, libheif's WebAssembly), outside V8's heap, and its size
 * is known from the header before it starts: pixels times what the format
 * holds a pixel. So each decode
 *
 * - is refused when its estimate is over `decodeCeilingBytes`, never started;
 * - waits for its turn in one lane (one decode at a time: two would hold
 *   twice the memory, and the second core serves the requests), up to
 *   `DECODE_LANE_WAIT_MS`;
 * - then reserves its estimate from the memory budget, at most half of it,
 *   waiting for room as a door does (`BUDGET_WAIT_MS`): half leaves the
 *   arrivals room while it runs, and the other half of its memory is bounded
 *   by the ceiling, one decode at a time.
 *
 * No turn or no room in time: a MemoryBudgetSpentError, which the doors
 * answer with their "try later".
 */
const decodeLane = singleton("image-decodes", () => new WorkLane(1));

/**
 * How long a decode waits for the one before it: a 48-megapixel HEIC takes
 * a few seconds, so a photo waits for two or three before it; the mail
 * reader waits as long for its turn.
 */
export const DECODE_LANE_WAIT_MS = 10_000;

/**
 * The most one decode may hold, estimated: twice the budget, a quarter of
 * the machine's memory when the heap cap is half of it (fly.toml: 152 MiB).
 */
export function decodeCeilingBytes(capacityBytes = memoryBudget.capacityBytes) {
  return 2 * capacityBytes;
}

/** What a decode is charged of the budget: its estimate, at most half the budget. */
export function decodeChargeBytes(estimateBytes: number, capacityBytes: number) {
  return Math.min(estimateBytes, Math.floor(capacityBytes / 2));
}

/** Inside the lane: `charge` reserves more of the estimate (capped as above), waiting for room. */
export type DecodeRoom = { charge(estimateBytes: number): Promise<void> };

/**
 * Runs `work` in the decode lane; `work` charges its estimate before it
 * decodes (in steps, if it learns more as it reads). What it charged is given
 * back when it ends, however it ends. `door` names the work in the error.
 */
export async function withDecodeRoom<T>(
  door: string,
  work: (room: DecodeRoom) => Promise<T>,
): Promise<T> {
  const leave = await decodeLane.enter({ waitMs: DECODE_LANE_WAIT_MS });
  if (!leave) throw new MemoryBudgetSpentError(door);
  const reservation: Reservation = memoryBudget.open();
  let estimated = 0;
  const room: DecodeRoom = {
    async charge(estimateBytes) {
      estimated += estimateBytes;
      const owed = decodeChargeBytes(estimated, memoryBudget.capacityBytes) - reservation.bytes;
      if (owed > 0 && !(await reservation.take(owed, { waitMs: BUDGET_WAIT_MS }))) {
        throw new MemoryBudgetSpentError(door);
      }
    },
  };
  try {
    return await work(room);
  } finally {
    reservation.release();
    leave();
  }
}

/** How a format's decode holds its pixels, for the estimate and for the sender. */
export type DecodeCost = {
  /** Bytes a pixel at the decode's peak (libvips and its decoder), measured with some over. */
  bytesPerPixel: number;
  /** What to call the format when it is refused for its size ("a progressive JPEG"). */
  name: string;
};

/**
 * Measured on Node 24 with fly.toml's allocator settings, sharp 0.35, one
 * thread, no cache, one decode to 1600 px and a thumbnail from it, 50
 * megapixels of each (peak RSS growth a pixel): baseline JPEG 0.4, progressive
 * JPEG 3.3 (4:2:0) and 6.3 (4:4:4: libjpeg keeps every coefficient), PNG 1.1
 * (1.5 with alpha), interlaced PNG 3.8 (the whole picture), WebP 0.4 to 0.7,
 * GIF 5.5, AVIF 18 (libheif and dav1d). docs/decisions/0238-photo-decodes-in-the-budget.md.
 */
export function sharpDecodeCost(metadata: Metadata): DecodeCost {
  const cost = eightBitCost(metadata);
  // Sixteen bits a sample (a PNG's, say) holds twice the bytes.
  return metadata.depth === "ushort" ? { ...cost, bytesPerPixel: 2 * cost.bytesPerPixel } : cost;
}

function eightBitCost(metadata: Metadata): DecodeCost {
  switch (metadata.format) {
    case "jpeg":
      if (!metadata.isProgressive) return { bytesPerPixel: 1, name: "JPEG" };
      return {
        bytesPerPixel: metadata.chromaSubsampling === "4:2:0" ? 4 : 7,
        name: "progressive JPEG",
      };
    case "png":
      return metadata.isProgressive
        ? { bytesPerPixel: 5, name: "interlaced PNG" }
        : { bytesPerPixel: 2, name: "PNG" };
    case "webp":
      return { bytesPerPixel: 1, name: "WebP" };
    case "gif":
      return { bytesPerPixel: 7, name: "GIF" };
    case "heif":
      return { bytesPerPixel: 20, name: metadata.compression === "av1" ? "AVIF" : "HEIF" };
    default:
      return { bytesPerPixel: 20, name: metadata.format ?? "picture" };
  }
}

/**
 * What a decode to at most `edge` pixels a side holds besides the pixels it
 * reads: the picture it makes (four bytes a pixel), and its encodings.
 */
export function decodeOutputBytes(edge: number) {
  return 2 * edge * edge * 4;
}
