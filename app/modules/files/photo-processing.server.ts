import type { Metadata, SharpOptions } from "sharp";
import { loadSharp } from "~/platform/sharp.server";
import { storage } from "~/platform/storage.server";
import {
  type AcceptedType,
  HEAD_BYTES,
  recordRejection,
  withExtension,
} from "./file-inspection.server";
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
  if ((metadata.width ?? 0) * (metadata.height ?? 0) > PHOTO_MAX_PIXELS) {
    throw new UploadRejectedError(
      "FILE_TOO_LARGE",
      `${original.name} has too many pixels. Photos can be at most ${PHOTO_MAX_PIXELS / 1_000_000} megapixels.`,
    );
  }
  const alpha = metadata.hasAlpha === true;
  let display: Buffer;
  let thumbnail: Buffer;
  try {
    // rotate() with no angle applies the EXIF orientation; sharp writes no
    // metadata (EXIF, GPS, XMP, ICC) unless asked to, and we never ask.
    const resized = sharp(input, options).rotate().resize({
      width: PHOTO_MAX_EDGE,
      height: PHOTO_MAX_EDGE,
      fit: "inside",
      withoutEnlargement: true,
    });
    display = await (alpha
      ? resized.png({ compressionLevel: 9 })
      : resized.jpeg({ quality: 85, mozjpeg: true })
    ).toBuffer();
    thumbnail = await sharp(input, options)
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
  if (original.detected.ext === "heic") {
    return new UploadRejectedError(
      "INVALID_FILE_TYPE",
      `"${original.name}" is a HEIC photo, which can't be read here. Please save it as JPEG and try again.`,
      { cause },
    );
  }
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
