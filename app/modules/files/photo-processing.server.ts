import type { Metadata, Sharp, SharpOptions } from "sharp";
import {
  BUDGET_WAIT_MS,
  MemoryBudgetSpentError,
  memoryBudget,
  type Reservation,
} from "~/platform/memory-budget.server";
import { loadSharp } from "~/platform/sharp.server";
import { storage } from "~/platform/storage.server";
import {
  type AcceptedType,
  HEAD_BYTES,
  recordRejection,
  withExtension,
} from "./file-inspection.server";
import { type HeicPhoto, openHeic } from "./heic-decoding.server";
import { KIND_TEXT, type StoredUpload, type UploadContext } from "./upload-kinds";
import { UploadRejectedError } from "./upload-rejected.server";

/**
 * Photos are re-encoded before anyone sees them: orientation applied, at
 * most 1600 px, metadata such as GPS dropped, plus a thumbnail for lists.
 */

export const PHOTO_MAX_EDGE = 1600;
export const THUMBNAIL_MAX_EDGE = 320;
/**
 * A 40-megapixel photo decodes to about 160 MB; more does not fit beside the
 * app on a 512 MB machine. Phones take 12 to 48 MP (48 MP ones save 12 MP by
 * default). docs/decisions/0054-security-limits.md.
 */
const PHOTO_MAX_PIXELS = 40_000_000;
/**
 * HEIC is decoded outside libvips, whole, in WebAssembly memory: measured at
 * about 8 bytes a pixel (a 12 MP photo peaks at 96 MB), so the limit is
 * lower. 25 MP takes the 24 MP photos of current iPhones (5712 × 4284);
 * their 48 MP "HEIF Max" ones are refused with the message below
 * (docs/decisions/0195-heic-photos.md).
 */
export const HEIC_MAX_PIXELS = 25_000_000;
export const HEIC_DECODE_BYTES_PER_PIXEL = 8;

// One photo at a time (`oneAtATime`), on sharp's one libvips thread
// (app/platform/sharp.server.ts): two decodes at once would not fit in memory.
let photoQueue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = photoQueue.then(work, work);
  photoQueue = turn.catch(() => undefined);
  return turn;
}

/** What sharp reports for the photo types we accept; a disagreement means a crafted file. */
const SHARP_FORMATS = new Set(["jpeg", "png", "gif", "webp", "heif"]);

async function* once(buffer: Uint8Array) {
  yield buffer;
}

async function readStored(key: string) {
  const stream = await storage.get(key);
  if (!stream) throw new Error(`Stored upload ${key} disappeared`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type StoredOriginal = {
  key: string;
  name: string;
  claimedMimeType: string;
  detected: AcceptedType;
};

/**
 * Replaces a stored original photo with its re-encoded image and thumbnail,
 * one photo at a time. Keys written are pushed to `written` as they are
 * stored, so the caller can remove them if a later step fails.
 */
export function reencodePhoto(ctx: UploadContext, original: StoredOriginal, written: string[]) {
  return oneAtATime(() => processPhoto(ctx, original, written));
}

function tooManyPixels(original: StoredOriginal, heic: boolean) {
  const limit = (heic ? HEIC_MAX_PIXELS : PHOTO_MAX_PIXELS) / 1_000_000;
  return new UploadRejectedError(
    "FILE_TOO_LARGE",
    heic
      ? `${original.name} has too many pixels. HEIC photos can be at most ${limit} megapixels: please save it smaller or as JPEG.`
      : `${original.name} has too many pixels. Photos can be at most ${limit} megapixels.`,
  );
}

/**
 * What a HEIC decode holds, charged to the memory budget before it starts
 * (docs/memory-budget.md): its estimated bytes, but at most half the budget,
 * which is a quarter of the heap while the decode's memory is WebAssembly's,
 * outside the heap; half leaves the other arrivals room while it runs.
 */
export function heicReservationBytes(pixels: number, capacityBytes: number) {
  return Math.min(pixels * HEIC_DECODE_BYTES_PER_PIXEL, Math.floor(capacityBytes / 2));
}

/** Re-encodes a stored original: final image plus thumbnail, both without metadata. */
async function processPhoto(
  ctx: UploadContext,
  original: StoredOriginal,
  written: string[],
): Promise<StoredUpload> {
  const sharp = await loadSharp();
  const input = await readStored(original.key);
  const options: SharpOptions = { failOn: "error", limitInputPixels: PHOTO_MAX_PIXELS };
  let metadata: Metadata;
  try {
    // Reads the header only, so a photo over the limit gets the message below.
    metadata = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch (cause) {
    throw unreadablePhoto(ctx, original, input, cause);
  }
  if (!metadata.format || !SHARP_FORMATS.has(metadata.format)) {
    throw unreadablePhoto(ctx, original, input, new Error(`sharp read ${metadata.format}`));
  }
  // sharp reads a HEIF's header but decodes only AV1 (AVIF) pictures; HEVC ones are HEIC.
  const heic = metadata.format === "heif" && metadata.compression === "hevc";
  const pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
  if (pixels > (heic ? HEIC_MAX_PIXELS : PHOTO_MAX_PIXELS)) throw tooManyPixels(original, heic);
  let reservation: Reservation | null = null;
  let decoder: HeicPhoto | null = null;
  let open: () => Sharp = () => sharp(input, options);
  let alpha = metadata.hasAlpha === true;
  try {
    if (heic) {
      reservation = await memoryBudget.reserve(
        heicReservationBytes(pixels, memoryBudget.capacityBytes),
        { waitMs: BUDGET_WAIT_MS },
      );
      if (!reservation) throw new MemoryBudgetSpentError("a HEIC photo");
      try {
        decoder = await openHeic(input);
      } catch (cause) {
        throw unreadablePhoto(ctx, original, input, cause);
      }
      // The decoder's own reading of the size, which a crafted header could make differ.
      if (decoder.width * decoder.height > HEIC_MAX_PIXELS) throw tooManyPixels(original, true);
      let raw: Awaited<ReturnType<HeicPhoto["decode"]>>;
      try {
        raw = await decoder.decode();
      } catch (cause) {
        throw unreadablePhoto(ctx, original, input, cause);
      }
      alpha = raw.channels === 4;
      // Raw pixels carry no metadata, and libheif has already turned them upright.
      open = () =>
        sharp(raw.pixels, {
          failOn: "error",
          limitInputPixels: HEIC_MAX_PIXELS,
          raw: { width: raw.width, height: raw.height, channels: raw.channels },
        });
    }
    return await encodeAndStore(ctx, original, input, open, alpha, written);
  } finally {
    decoder?.dispose();
    reservation?.release();
  }
}

async function encodeAndStore(
  ctx: UploadContext,
  original: StoredOriginal,
  input: Buffer,
  open: () => Sharp,
  alpha: boolean,
  written: string[],
): Promise<StoredUpload> {
  let display: Buffer;
  let thumbnail: Buffer;
  try {
    // rotate() with no angle applies the EXIF orientation; sharp writes no
    // metadata (EXIF, GPS, XMP, ICC) unless asked to, and we never ask.
    const resized = open().rotate().resize({
      width: PHOTO_MAX_EDGE,
      height: PHOTO_MAX_EDGE,
      fit: "inside",
      withoutEnlargement: true,
    });
    display = await (alpha
      ? resized.png({ compressionLevel: 9 })
      : resized.jpeg({ quality: 85, mozjpeg: true })
    ).toBuffer();
    thumbnail = await open()
      .rotate()
      .resize({
        width: THUMBNAIL_MAX_EDGE,
        height: THUMBNAIL_MAX_EDGE,
        fit: "inside",
        withoutEnlargement: true,
      })
      .flatten({ background: "#ffffff" })
      .jpeg({ quality: 75, mozjpeg: true })
      .toBuffer();
  } catch (cause) {
    throw unreadablePhoto(ctx, original, input, cause);
  }
  const ext = alpha ? "png" : "jpg";
  const final = await storage.put(once(display));
  written.push(final.key);
  const thumb = await storage.put(once(thumbnail));
  written.push(thumb.key);
  await storage.delete(original.key);
  return {
    key: final.key,
    thumbnailKey: thumb.key,
    name: withExtension(original.name, ext, "photo"),
    size: final.size,
    mimeType: alpha ? "image/png" : "image/jpeg",
  };
}

function unreadablePhoto(
  ctx: UploadContext,
  original: StoredOriginal,
  input: Buffer,
  cause: unknown,
) {
  const reason = `Could not decode the ${original.detected.ext} image: ${String(cause)}`;
  recordRejection(
    ctx,
    {
      originalFilename: original.name,
      claimedMimeType: original.claimedMimeType,
      detectedFileType: original.detected.ext,
      fileSizeBytes: input.length,
      head: input.subarray(0, HEAD_BYTES),
      threat: { threatType: "malformed_image", threatLevel: "low", signatures: [] },
      rejectionReason: reason.slice(0, 500),
    },
    false,
  );
  return new UploadRejectedError(
    "INVALID_FILE_TYPE",
    `"${original.name}" could not be read as a photo. ${KIND_TEXT.photo.allowed}`,
    { cause },
  );
}
