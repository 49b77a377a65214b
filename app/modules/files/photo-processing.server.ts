import type { Metadata, Sharp, SharpOptions } from "sharp";
import { LIMITS } from "~/modules/plans/limits";
import {
  type DecodeRoom,
  decodeCeilingBytes,
  decodeOutputBytes,
  loadSharp,
  sharpDecodeCost,
  withDecodeRoom,
} from "~/platform/sharp.server";
import { storage } from "~/platform/storage.server";
import {
  type AcceptedType,
  HEAD_BYTES,
  recordRejection,
  withExtension,
} from "./file-inspection.server";
import {
  HeicDecodeError,
  heicDecodeBytes,
  heicShrinkFor,
  type RawPhoto,
} from "./heic-decoding.server";
import { openHeicOnItsThread } from "./heic-thread.server";
import { photoTakenOn } from "./photo-taken.server";
import { KIND_TEXT, type StoredUpload, type UploadContext } from "./upload-kinds";
import { UploadRejectedError } from "./upload-rejected.server";

/**
 * Photos are re-encoded before anyone sees them: orientation applied, at
 * most 1600 px, metadata such as GPS dropped, plus a thumbnail for lists.
 *
 * A photo's size is read from its header before anything is decoded, and a
 * photo with more pixels than LIMITS.photo.maxPixels, or more than its
 * format can decode within one decode's memory, is refused there, before it
 * waits for its turn. Then it is decoded in the decode lane with its
 * estimate charged to the memory budget (withDecodeRoom,
 * docs/decisions/0238-photo-decodes-in-the-budget.md); a HEIC photo on a
 * thread of its own (heic-thread.server.ts).
 */

export const PHOTO_MAX_EDGE = 1600;
export const THUMBNAIL_MAX_EDGE = 320;

/** Enough of a file for its header, when the header comes first (JPEG, PNG, HEIF as phones write them). */
const HEADER_BYTES = 64 * 1024;

/**
 * The HEIC thread and its WebAssembly instance (16 MB) before a pixel is
 * decoded (measured: 15 to 38 MB of RSS a thread, the first the most).
 */
const HEIC_THREAD_BYTES = 32 * 1024 * 1024;

/** What sharp reports for the photo types we accept; a disagreement means a crafted file. */
const SHARP_FORMATS = new Set(["jpeg", "png", "gif", "webp", "heif"]);

async function* once(buffer: Uint8Array) {
  yield buffer;
}

async function readStored(key: string, upTo = Number.POSITIVE_INFINITY) {
  const stream = await storage.get(key);
  if (!stream) throw new Error(`Stored upload ${key} disappeared`);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= upTo) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks);
}

type StoredOriginal = {
  key: string;
  name: string;
  /** Bytes stored under `key`. */
  size: number;
  claimedMimeType: string;
  detected: AcceptedType;
};

const megapixels = (pixels: number) => Math.floor(pixels / 1_000_000);

function tooManyPixels(original: StoredOriginal) {
  return new UploadRejectedError(
    "FILE_TOO_LARGE",
    `${original.name} has too many pixels. Photos can be at most ${megapixels(LIMITS.photo.maxPixels)} megapixels.`,
  );
}

/** A photo under the limit whose format holds more a pixel than one decode may (a GIF, say). */
function tooManyPixelsFor(original: StoredOriginal, format: string, maxPixels: number) {
  const article = /^[aeiou]/i.test(format) ? "An" : "A";
  const instead = format.endsWith("JPEG") ? "" : " or as JPEG";
  return new UploadRejectedError(
    "FILE_TOO_LARGE",
    `${original.name} has too many pixels. ${article} ${format} photo can be at most ${megapixels(maxPixels)} megapixels: please save it smaller${instead}.`,
  );
}

/** A HEIF whose pictures are HEVC: sharp reads its header, heic-decoding.server.ts its pixels. */
const isHeic = (metadata: Metadata) =>
  metadata.format === "heif" && metadata.compression === "hevc";

const pixelsOf = (metadata: Metadata) => (metadata.width ?? 0) * (metadata.height ?? 0);

/**
 * Refuses a photo its header says is over the limits. A HEIC's cost depends
 * on how it is stored (in tiles or in one piece), which its decoder says:
 * only the pixel limit is judged here.
 */
function judgeHeader(original: StoredOriginal, metadata: Metadata) {
  const pixels = pixelsOf(metadata);
  if (pixels > LIMITS.photo.maxPixels) throw tooManyPixels(original);
  if (isHeic(metadata)) return;
  const cost = sharpDecodeCost(metadata);
  const room = decodeCeilingBytes() - decodeOutputBytes(PHOTO_MAX_EDGE) - original.size;
  if (pixels * cost.bytesPerPixel > room) {
    throw tooManyPixelsFor(original, cost.name, room / cost.bytesPerPixel);
  }
}

/**
 * Replaces a stored original photo with its re-encoded image and thumbnail.
 * Keys written are pushed to `written` as they are stored, so the caller can
 * remove them if a later step fails. No turn in the decode lane or no room
 * in the budget in time: a MemoryBudgetSpentError (the busy answer).
 */
export async function reencodePhoto(
  ctx: UploadContext,
  original: StoredOriginal,
  written: string[],
): Promise<StoredUpload> {
  const sharp = await loadSharp();
  const options: SharpOptions = { failOn: "error", limitInputPixels: LIMITS.photo.maxPixels };
  // The header from the file's first bytes, read without a limit so that a photo over it gets the
  // message below; null when it is further in (a WebP's or GIF's is read with the whole file).
  const early = await sharp(await readStored(original.key, HEADER_BYTES), {
    limitInputPixels: false,
  })
    .metadata()
    .catch(() => null);
  if (early) judgeHeader(original, early);
  return withDecodeRoom("a photo", async (room) => {
    await room.charge(original.size);
    const input = await readStored(original.key);
    let metadata: Metadata;
    try {
      metadata = await sharp(input, { ...options, limitInputPixels: false }).metadata();
    } catch (cause) {
      throw unreadablePhoto(ctx, original, input, cause);
    }
    if (!metadata.format || !SHARP_FORMATS.has(metadata.format) || pixelsOf(metadata) === 0) {
      throw unreadablePhoto(ctx, original, input, new Error(`sharp read ${metadata.format}`));
    }
    judgeHeader(original, metadata);
    // Read here, where sharp has the EXIF already: the re-encoded photo keeps none.
    const dated = { ...original, takenOn: photoTakenOn(metadata.exif) };
    if (!isHeic(metadata)) {
      await room.charge(
        pixelsOf(metadata) * sharpDecodeCost(metadata).bytesPerPixel +
          decodeOutputBytes(PHOTO_MAX_EDGE),
      );
      const alpha = metadata.hasAlpha === true;
      return encodeAndStore(ctx, dated, input, sharp(input, options), alpha, written);
    }
    const raw = await heicPixels(ctx, original, input, room);
    // Raw pixels carry no metadata, and are already turned upright.
    const image = sharp(raw.pixels, {
      failOn: "error",
      limitInputPixels: LIMITS.photo.maxPixels,
      raw: { width: raw.width, height: raw.height, channels: raw.channels },
    });
    return encodeAndStore(ctx, dated, input, image, raw.channels === 4, written);
  });
}

/**
 * A HEIC photo's pixels, shrunk for the display image, from its own thread:
 * the thread and the decode are charged before they start, the decode once
 * the decoder has said how the picture is stored (in tiles or in one piece).
 */
async function heicPixels(
  ctx: UploadContext,
  original: StoredOriginal,
  input: Buffer,
  room: DecodeRoom,
): Promise<RawPhoto> {
  const unreadable = (cause: unknown) => {
    if (cause instanceof HeicDecodeError) return unreadablePhoto(ctx, original, input, cause);
    return cause;
  };
  await room.charge(HEIC_THREAD_BYTES);
  const thread = await openHeicOnItsThread(input).catch((cause: unknown) => {
    throw unreadable(cause);
  });
  try {
    const { layout } = thread;
    // The decoder's own reading of the size, which a crafted header could make differ.
    const pixels = layout.width * layout.height;
    if (pixels > LIMITS.photo.maxPixels) throw tooManyPixels(original);
    const shrink = heicShrinkFor(layout, PHOTO_MAX_EDGE);
    const decodeBytes = heicDecodeBytes(layout, shrink, input.length);
    const besides = HEIC_THREAD_BYTES + decodeOutputBytes(PHOTO_MAX_EDGE);
    if (besides + decodeBytes > decodeCeilingBytes()) {
      // Stored in one piece, which is decoded whole: what one decode may hold, in its pixels.
      const perPixel = (decodeBytes - input.length) / pixels;
      throw tooManyPixelsFor(
        original,
        "HEIC",
        (decodeCeilingBytes() - besides - input.length) / perPixel,
      );
    }
    await room.charge(decodeBytes + decodeOutputBytes(PHOTO_MAX_EDGE));
    return await thread.decode(shrink).catch((cause: unknown) => {
      throw unreadable(cause);
    });
  } finally {
    await thread.close();
  }
}

/**
 * The photo decoded once, to the display image; the thumbnail is made from
 * that, a picture of at most 1600 px, rather than from the original again.
 */
async function encodeAndStore(
  ctx: UploadContext,
  original: StoredOriginal & { takenOn: string | null },
  input: Buffer,
  image: Sharp,
  alpha: boolean,
  written: string[],
): Promise<StoredUpload> {
  let display: Buffer;
  let thumbnail: Buffer;
  try {
    // rotate() with no angle applies the EXIF orientation; sharp writes no
    // metadata (EXIF, GPS, XMP, ICC) unless asked to, and we never ask.
    const resized = image.rotate().resize({
      width: PHOTO_MAX_EDGE,
      height: PHOTO_MAX_EDGE,
      fit: "inside",
      withoutEnlargement: true,
    });
    display = await (alpha
      ? resized.png({ compressionLevel: 9 })
      : resized.jpeg({ quality: 85, mozjpeg: true })
    ).toBuffer();
    const sharp = await loadSharp();
    thumbnail = await sharp(display, { failOn: "error" })
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
    ...(original.takenOn ? { takenOn: original.takenOn } : {}),
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
