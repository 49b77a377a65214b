import { Readable } from "node:stream";
import {
  MaxPartSizeExceededError,
  type UploadHandler,
  unstable_composeUploadHandlers,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
} from "@remix-run/node";
import { eq } from "drizzle-orm";
import { type FileTypeResult, fileTypeFromBuffer, fileTypeFromStream } from "file-type";
import sharp from "sharp";
import { securityRejections, users } from "#db/schema";
import { FileTooLargeError } from "#storage/index";
import { recordSecurityEvent } from "~/modules/admin/security-events.server";
import { LIMITS } from "~/modules/billing/limits";
import { db } from "~/platform/db.server";
import { clientIp, userAgent } from "~/platform/request-info.server";
import { storage } from "~/platform/storage.server";
import { deleteStoredFiles, storedKeys } from "./stored-files.server";

/**
 * The upload pipeline (docs/product-rules.md, "Accounts and security"): a file's
 * type is decided by its first bytes, never by its name or the browser's
 * claim; a mismatch is refused before anything is stored and recorded in
 * `security_rejections`; everything else is streamed to storage under a
 * random key with the per-file limit enforced while reading. Photos are then
 * re-encoded (orientation applied, at most 1600 px, metadata such as GPS
 * dropped) and get a thumbnail. A failed request leaves no file behind.
 */

export type UploadKind = "photo" | "file";

export type StoredUpload = {
  /** Storage key of the file to send (for photos: the re-encoded image). */
  key: string;
  /** Photos only: a small JPEG for lists. */
  thumbnailKey?: string;
  /** The user's file name, cleaned for display; never used as a path. */
  name: string;
  /** Bytes stored under `key`. */
  size: number;
  /** From the detected (or re-encoded) content, never the browser's claim. */
  mimeType: string;
};

export type UploadContext = {
  request: Request;
  userId: number;
  /** Filled as files are stored; parseUploadForm deletes them all if the request fails. */
  stored: StoredUpload[];
  /** Most files accepted in this request; defaults to the per-item limit of the kind. */
  maxFiles?: number;
};

export type UploadErrorCode =
  | "FILE_TOO_LARGE"
  | "INVALID_FILE_TYPE"
  | "UPLOAD_FAILED"
  | "EMAIL_NOT_VERIFIED";

const DEFAULT_STATUS: Record<UploadErrorCode, number> = {
  FILE_TOO_LARGE: 413,
  INVALID_FILE_TYPE: 415,
  UPLOAD_FAILED: 400,
  EMAIL_NOT_VERIFIED: 403,
};

export const UNVERIFIED_UPLOAD_MESSAGE =
  "Please confirm your email address before uploading photos or files: use the link we e-mailed you, or have it sent again.";

/** A refusal the user can act on: `message` is written for them. */
export class UploadRejectedError extends Error {
  override name = "UploadRejectedError";
  readonly status: number;
  /** For FILE_TOO_LARGE: the limit, so the page can say it. */
  readonly limitBytes?: number;
  /** The text fields read before the refusal (those above the files), to show them again. */
  fieldsRead?: FormData;

  constructor(
    readonly code: UploadErrorCode,
    message: string,
    options: { status?: number; limitBytes?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status ?? DEFAULT_STATUS[code];
    this.limitBytes = options.limitBytes;
  }
}

/** The form field that carries files. */
export const UPLOAD_FIELD = "files";
/** Enough for every signature file-type knows. */
const HEAD_BYTES = 4100;
const TEXT_FIELD_MAX_BYTES = 64 * 1024;
const NAME_MAX_LENGTH = 200;
export const PHOTO_MAX_EDGE = 1600;
export const THUMBNAIL_MAX_EDGE = 320;
/**
 * A 40-megapixel photo decodes to about 160 MB; more does not fit beside the
 * app on a 512 MB machine. Phones take 12 to 48 MP (48 MP ones save 12 MP by
 * default). docs/decisions.md, "Security limits".
 */
const PHOTO_MAX_PIXELS = 40_000_000;

// One libvips thread, and one photo at a time (`oneAtATime`): two decodes at
// once would not fit in memory either.
sharp.concurrency(1);
let photoQueue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = photoQueue.then(work, work);
  photoQueue = turn.catch(() => undefined);
  return turn;
}

const MB = 1024 * 1024;
const PHOTO_TYPES = new Set(["jpg", "png", "apng", "gif", "webp", "heic", "avif"]);
/** What sharp reports for those types; a disagreement means a crafted file. */
const SHARP_FORMATS = new Set(["jpeg", "png", "gif", "webp", "heif"]);

const KIND_TEXT = {
  photo: {
    noun: "photo",
    allowed: "Photos must be JPEG, PNG, GIF or WebP.",
    maxFilesMessage: () => `Photo limit reached: ${LIMITS.item.maxPhotos} photos per item.`,
    defaultMaxFiles: LIMITS.item.maxPhotos,
  },
  file: {
    noun: "file",
    allowed: "Files must be PDF or Word documents (.pdf, .doc or .docx).",
    maxFilesMessage: () => `File limit reached: ${LIMITS.item.maxFiles} files per item.`,
    defaultMaxFiles: LIMITS.item.maxFiles,
  },
} as const;

/** Formats that run code when opened; refused loudly wherever they turn up. */
const EXECUTABLE_TYPES = new Set([
  "exe",
  "elf",
  "macho",
  "class",
  "dex",
  "wasm",
  "apk",
  "jar",
  "xpi",
  "crx",
  "deb",
  "rpm",
  "lnk",
  "swf",
  "dmg",
  "cab",
  "chm",
  "reg",
  "docm",
  "dotm",
  "xlsm",
  "pptm",
  "potm",
  "ppsm",
]);
const SCRIPT_MARKERS = [
  "<script",
  "<html",
  "<!doctype html",
  "<svg",
  "<?xml",
  "<?php",
  "<iframe",
  "<body",
  "<head",
  "javascript:",
  "onload=",
  "onerror=",
];
/** The header the claimed extension would have, for the rejection record. */
const EXPECTED_HEADERS: Record<string, string> = {
  jpg: "ffd8ff",
  jpeg: "ffd8ff",
  png: "89504e470d0a1a0a",
  gif: "47494638",
  webp: "52494646",
  pdf: "25504446",
  docx: "504b0304",
  doc: "d0cf11e0a1b11ae1",
};

type Accepted = { ext: string; mime: string };

/** The type to store the upload as, or null when the kind does not allow it. */
function acceptedType(
  kind: UploadKind,
  detected: FileTypeResult | undefined,
  name: string,
): Accepted | null {
  if (!detected) return null;
  if (kind === "photo") return PHOTO_TYPES.has(detected.ext) ? detected : null;
  if (detected.ext === "pdf") return { ext: "pdf", mime: "application/pdf" };
  if (detected.ext === "docx") return detected;
  // An OLE container is also .xls, .ppt, .msg or .msi; only a .doc name says Word.
  if (detected.ext === "cfb" && /\.doc$/i.test(name)) {
    return { ext: "doc", mime: "application/msword" };
  }
  return null;
}

function extensionOf(name: string) {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** Cuts to `max` code points without splitting a surrogate pair. */
function truncate(text: string, max: number) {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join("");
}

/**
 * The user's file name made safe to show and to put in a Content-Disposition:
 * no folders, no control or bidirectional-override characters (which can
 * disguise `photo\u202Egpj.exe`), no leading dots, at most 200 characters
 * with the extension kept.
 */
export function sanitizeFilename(raw: string | undefined, fallback: string) {
  const base = (raw ?? "").split(/[/\\]/).pop() ?? "";
  let name = base
    .normalize("NFC")
    // Control (Cc) and format (Cf: bidi overrides, zero-width, BOM) characters.
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, "")
    .replace(/[<>:"|?*]/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+/, "");
  if (!name) name = fallback;
  if (Array.from(name).length <= NAME_MAX_LENGTH) return name;
  const ext = extensionOf(name);
  if (!ext || ext.length > 10) return truncate(name, NAME_MAX_LENGTH);
  const stem = name.slice(0, name.length - ext.length - 1);
  return `${truncate(stem, NAME_MAX_LENGTH - ext.length - 1).trimEnd()}.${ext}`;
}

/** Makes a (sanitized) name's extension agree with what the file really is. */
function withExtension(name: string, ext: string, noun: string) {
  const aliases = ext === "jpg" ? ["jpg", "jpeg"] : [ext];
  const current = extensionOf(name);
  if (aliases.includes(current)) return name;
  const replaceable = current !== "" && current.length <= 10 && !/\s/.test(current);
  const stem = replaceable ? name.slice(0, name.length - current.length - 1) : name;
  return sanitizeFilename(`${stem}.${ext}`, `${noun}.${ext}`);
}

/**
 * Reads chunks until `want` bytes are in hand (or the part ends) and returns
 * them with an iterable that replays them and continues with the rest, so the
 * head is inspected without buffering the file.
 */
async function readHead(data: AsyncIterable<Uint8Array>, want: number) {
  const iterator = data[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  while (length < want) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    length += next.value.byteLength;
  }
  async function* all(): AsyncGenerator<Uint8Array> {
    yield* chunks;
    chunks.length = 0;
    if (ended) return;
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
  return { head: Buffer.concat(chunks).subarray(0, want), length, all };
}

async function drain(data: AsyncIterable<Uint8Array>) {
  for await (const _chunk of data) {
    // Discarded: a part we do not accept must still be read past.
  }
}

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

/** Detects the type of a stored file from its whole content. */
async function detectStored(key: string) {
  const stream = await storage.get(key);
  if (!stream) throw new Error(`Stored upload ${key} disappeared`);
  try {
    // As a web stream: TypeScript resolves file-type's browser typings, which take no Node stream.
    return await fileTypeFromStream(Readable.toWeb(stream) as ReadableStream<Uint8Array>);
  } finally {
    stream.destroy();
  }
}

type Threat = { threatType: string; threatLevel: string; signatures: string[] };

function classifyThreat(detected: FileTypeResult | undefined, head: Buffer): Threat {
  const signatures: string[] = [];
  if (head.subarray(0, 2).toString("latin1") === "MZ") signatures.push("MZ");
  if (head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) signatures.push("ELF");
  if (head.subarray(0, 2).toString("latin1") === "#!") signatures.push("#!");
  if ((detected && EXECUTABLE_TYPES.has(detected.ext)) || signatures.length > 0) {
    return { threatType: "executable", threatLevel: "high", signatures };
  }
  const text = head.toString("latin1").toLowerCase();
  const markers = SCRIPT_MARKERS.filter((marker) => text.includes(marker));
  if ((!detected || detected.ext === "xml") && markers.length > 0) {
    return { threatType: "script", threatLevel: "high", signatures: markers };
  }
  return { threatType: "type_mismatch", threatLevel: "medium", signatures: markers };
}

function recordRejection(
  ctx: UploadContext,
  row: {
    originalFilename: string;
    claimedMimeType: string;
    detectedFileType: string;
    fileSizeBytes: number;
    head: Buffer;
    threat: Threat;
    rejectionReason: string;
  },
  withEvent: boolean,
) {
  try {
    const claimedExt = extensionOf(row.originalFilename);
    db.insert(securityRejections)
      .values({
        userId: ctx.userId,
        ipAddress: clientIp(ctx.request),
        userAgent: userAgent(ctx.request),
        originalFilename: row.originalFilename.slice(0, 500),
        claimedMimeType: row.claimedMimeType.slice(0, 200),
        detectedFileType: row.detectedFileType,
        fileSizeBytes: row.fileSizeBytes,
        expectedHeader: EXPECTED_HEADERS[claimedExt] ?? null,
        actualHeader: row.head.subarray(0, 16).toString("hex"),
        headerOffset: 0,
        threatType: row.threat.threatType,
        threatLevel: row.threat.threatLevel,
        attackVector: "file_upload",
        rejectionReason: row.rejectionReason,
        additionalSignatures: row.threat.signatures,
        scanMetadata: { headBytes: Math.min(row.head.length, HEAD_BYTES) },
      })
      .run();
    if (withEvent) {
      recordSecurityEvent(ctx.request, {
        eventType: "suspicious_activity",
        severity: "medium",
        userId: ctx.userId,
        details: {
          filename: row.originalFilename.slice(0, 500),
          detected: row.detectedFileType,
          threatType: row.threat.threatType,
        },
      });
    }
  } catch (error) {
    // The refusal stands even if it cannot be written down.
    console.error("Could not record an upload rejection", error);
  }
}

function tooLarge(name: string, kind: UploadKind, cause?: unknown) {
  const maxBytes = LIMITS.item.maxFileBytes;
  return new UploadRejectedError(
    "FILE_TOO_LARGE",
    `${name} is too large. Maximum ${KIND_TEXT[kind].noun} size is ${Math.round(maxBytes / MB)}MB.`,
    { limitBytes: maxBytes, cause },
  );
}

/** Re-encodes a stored original: final image plus thumbnail, both without metadata. */
async function processPhoto(
  ctx: UploadContext,
  original: { key: string; name: string; claimedMimeType: string; detected: Accepted },
  written: string[],
): Promise<StoredUpload> {
  const input = await readStored(original.key);
  const options: sharp.SharpOptions = { failOn: "error", limitInputPixels: PHOTO_MAX_PIXELS };
  let metadata: sharp.Metadata;
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
  original: { name: string; claimedMimeType: string; detected: Accepted },
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

/**
 * A Remix upload handler for the `files` parts of a form: checks each file's
 * first bytes, stores accepted ones (photos re-encoded) and returns the
 * storage key as the form value. Every stored file is added to `ctx.stored`;
 * a file that fails part-way removes what it wrote itself.
 */
export function createUploadHandler(kind: UploadKind, ctx: UploadContext): UploadHandler {
  const text = KIND_TEXT[kind];
  const maxFiles = ctx.maxFiles ?? text.defaultMaxFiles;
  let count = 0;

  return async ({ name: field, filename, contentType, data }) => {
    if (filename === undefined && field !== UPLOAD_FIELD) return undefined; // a text field
    if (filename === undefined || filename === "" || field !== UPLOAD_FIELD) {
      // Read past, keeping nothing: a text value posing as a `files` entry (the
      // field must only ever hold keys we stored), a file input left empty, or
      // a file in an unexpected field. An unread part would be buffered.
      await drain(data);
      return undefined;
    }
    const name = sanitizeFilename(filename, text.noun);
    const { head, length, all } = await readHead(data, HEAD_BYTES);
    if (length === 0) {
      throw new UploadRejectedError("UPLOAD_FAILED", `"${name}" is empty.`);
    }
    count += 1;
    if (count > maxFiles) {
      throw new UploadRejectedError("UPLOAD_FAILED", text.maxFilesMessage());
    }

    const reject = (detected: FileTypeResult | undefined, size: number) => {
      recordRejection(
        ctx,
        {
          originalFilename: name,
          // The parser leaves it undefined when the part has no Content-Type.
          claimedMimeType: contentType ?? "",
          detectedFileType: detected?.ext ?? "unknown",
          fileSizeBytes: size,
          head,
          threat: classifyThreat(detected, head),
          rejectionReason: `Content is ${detected ? `${detected.ext} (${detected.mime})` : "of an unknown type"}, not an allowed ${text.noun} type`,
        },
        true,
      );
      return new UploadRejectedError(
        "INVALID_FILE_TYPE",
        `"${name}" is not an allowed ${text.noun} type. ${text.allowed}`,
      );
    };

    const detected = await fileTypeFromBuffer(head);
    const accepted = acceptedType(kind, detected, name);
    // A .docx is a zip whose Word parts may come after the first 4100 bytes
    // (LibreOffice writes [Content_Types].xml last): such a zip is stored, read
    // again in full, and removed if it is not a Word document after all.
    const scanWhole = !accepted && kind === "file" && detected?.ext === "zip";
    if (!accepted && !scanWhole) throw reject(detected, length);

    const written: string[] = [];
    try {
      let original: { key: string; size: number };
      try {
        original = await storage.put(all(), { maxBytes: LIMITS.item.maxFileBytes });
      } catch (error) {
        if (error instanceof FileTooLargeError) throw tooLarge(name, kind, error);
        throw error;
      }
      written.push(original.key);
      let type = accepted;
      if (!type) {
        // Only a zip gets here (scanWhole).
        const whole = await detectStored(original.key);
        type = acceptedType(kind, whole, name);
        if (!type) throw reject(whole ?? detected, original.size);
      }
      const upload =
        kind === "photo"
          ? await oneAtATime(() =>
              processPhoto(
                ctx,
                { key: original.key, name, claimedMimeType: contentType ?? "", detected: type! },
                written,
              ),
            )
          : {
              key: original.key,
              name: withExtension(name, type.ext, "file"),
              size: original.size,
              mimeType: type.mime,
            };
      ctx.stored.push(upload);
      return upload.key;
    } catch (error) {
      await deleteStoredFiles(written);
      throw error;
    }
  };
}

/** Known failures become a message for the user; anything else is passed on as it is. */
function asUploadError(error: unknown): unknown {
  if (error instanceof UploadRejectedError) return error;
  if (error instanceof MaxPartSizeExceededError) {
    return new UploadRejectedError("UPLOAD_FAILED", "A form field is too long.", {
      status: 413,
      cause: error,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOSPC" || code === "EDQUOT") {
    console.error("Upload storage is full", error);
    return new UploadRejectedError(
      "UPLOAD_FAILED",
      "The file could not be saved right now. Please try again later.",
      { status: 507, cause: error },
    );
  }
  if (
    error instanceof Error &&
    (error.message === "Could not parse content as FormData." ||
      error.message.startsWith("malformed multipart"))
  ) {
    return new UploadRejectedError(
      "UPLOAD_FAILED",
      "The upload could not be read. Please try again.",
      {
        cause: error,
      },
    );
  }
  return error;
}

/**
 * Files only from a confirmed address (docs/decisions.md, "Unverified
 * accounts"): a throwaway account must not fill our storage. The first chosen
 * file is read past, never stored, and refuses the request.
 */
const refuseEveryFile: UploadHandler = async ({ name: field, filename, data }) => {
  if (filename === undefined && field !== UPLOAD_FIELD) return undefined;
  await drain(data);
  if (!filename) return undefined;
  throw new UploadRejectedError("EMAIL_NOT_VERIFIED", UNVERIFIED_UPLOAD_MESSAGE);
};

function hasVerifiedEmail(userId: number) {
  return (
    db.select({ emailVerified: users.emailVerified }).from(users).where(eq(users.id, userId)).get()
      ?.emailVerified === true
  );
}

/**
 * Parses a multipart form: `files` parts through the upload pipeline (for a
 * verified account only), text fields (64 KB each at most) into the FormData.
 * On any failure (a refused file, a file too large, a dropped connection, a
 * full disk) every file already stored for this request is deleted before the
 * error is thrown.
 */
export async function parseUploadForm(
  request: Request,
  kind: UploadKind,
  userId: number,
  options: { maxFiles?: number } = {},
): Promise<{ formData: FormData; stored: StoredUpload[] }> {
  const stored: StoredUpload[] = [];
  const fieldsRead = new FormData();
  const readTextField = unstable_createMemoryUploadHandler({
    maxPartSize: TEXT_FIELD_MAX_BYTES,
    filter: ({ filename, name }) => filename === undefined && name !== UPLOAD_FIELD,
  });
  const handler = unstable_composeUploadHandlers(
    hasVerifiedEmail(userId)
      ? createUploadHandler(kind, { request, userId, stored, maxFiles: options.maxFiles })
      : refuseEveryFile,
    async (part) => {
      const value = await readTextField(part);
      if (typeof value === "string") fieldsRead.append(part.name, value);
      return value;
    },
  );
  try {
    const formData = await unstable_parseMultipartFormData(request, handler);
    return { formData, stored };
  } catch (error) {
    await deleteStoredFiles(storedKeys(stored));
    const refusal = asUploadError(error);
    if (refusal instanceof UploadRejectedError) refusal.fieldsRead = fieldsRead;
    throw refusal;
  }
}
