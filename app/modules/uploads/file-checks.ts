import { LIMITS } from "~/modules/plans/limits";

/**
 * The browser's checks on files as they are chosen
 * (docs/product-rules.md, Uploads), so a wrong or oversized file is named at once instead of after a
 * long upload. The server checks every file again by its content
 * (uploads.server.ts): these only save the wait, they decide nothing.
 */
export type UploadKind = "photo" | "file" | "video";
export type ChosenFile = { name: string; type: string; size: number };

const WORD_AND_PDF_TYPES = new Set([
  "application/pdf",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
]);
const WORD_AND_PDF_EXTENSIONS = /\.(pdf|docx?)$/i;
const HEIC_EXTENSIONS = /\.(heic|heif)$/i;
const VIDEO_EXTENSIONS = /\.(mp4|m4v|mov|webm)$/i;
/** What a browser that does not know a type calls it. */
const UNKNOWN_TYPES = new Set(["", "application/octet-stream"]);

const MB = 1024 * 1024;

export const INVALID_FILE_TYPES = "Invalid file types";
export const PHOTO_LIMIT_REACHED = "Photo limit reached";

/**
 * Photos must be an image type (or a HEIC by name: browsers off Apple's
 * systems often give it none); files PDF or Word (by type, or by name when
 * the browser gives none).
 */
export function isAllowedType(kind: UploadKind, file: ChosenFile) {
  if (kind === "video") {
    return file.type.startsWith("video/") || VIDEO_EXTENSIONS.test(file.name);
  }
  if (kind === "photo") {
    return (
      file.type.startsWith("image/") ||
      (UNKNOWN_TYPES.has(file.type) && HEIC_EXTENSIONS.test(file.name))
    );
  }
  return WORD_AND_PDF_TYPES.has(file.type) || WORD_AND_PDF_EXTENSIONS.test(file.name);
}

export function maxFilesFor(kind: UploadKind) {
  if (kind === "video") return 1;
  return kind === "photo" ? LIMITS.item.maxPhotos : LIMITS.item.maxFiles;
}

/** A clip as uploaded may be far larger than a photo or a document (LIMITS.video). */
export function maxBytesFor(kind: UploadKind) {
  return kind === "video" ? LIMITS.video.maxUploadBytes : LIMITS.item.maxFileBytes;
}

export function tooLargeMessage(kind: UploadKind, name: string) {
  return `${name} is too large. Maximum ${kind} size is ${Math.round(maxBytesFor(kind) / MB)}MB.`;
}

export type FileCheckResult<T extends ChosenFile> = {
  /** The files that passed, in the order chosen, after the ones already kept. */
  kept: T[];
  /** Names refused for their type, listed under "Invalid file types". */
  invalidNames: string[];
  /** One "{name} is too large..." message per oversized file. */
  tooLarge: string[];
  /** "Photo limit reached" (or the files' equivalent) when some had to be left out. */
  limitMessage: string | null;
};

/**
 * Adds `chosen` to the files already `kept` (and `alreadyStored`, the item's
 * files on the server when editing): wrong types and oversized files are
 * left out with their reason, and nothing beyond the per-item count.
 */
export function checkChosenFiles<T extends ChosenFile>(
  kind: UploadKind,
  kept: readonly T[],
  chosen: readonly T[],
  alreadyStored = 0,
): FileCheckResult<T> {
  const result: FileCheckResult<T> = {
    kept: [...kept],
    invalidNames: [],
    tooLarge: [],
    limitMessage: null,
  };
  const room = maxFilesFor(kind) - alreadyStored;
  for (const file of chosen) {
    if (!isAllowedType(kind, file)) {
      result.invalidNames.push(file.name);
    } else if (file.size > maxBytesFor(kind)) {
      result.tooLarge.push(tooLargeMessage(kind, file.name));
    } else if (result.kept.length >= room) {
      result.limitMessage =
        kind === "photo"
          ? PHOTO_LIMIT_REACHED
          : kind === "video"
            ? "One video per item."
            : `File limit reached: ${LIMITS.item.maxFiles} files per item.`;
    } else {
      result.kept.push(file);
    }
  }
  return result;
}

export type SizeBarLevel = "normal" | "warning" | "over";

/** The draft size bar's colour: amber above 80 %, red above 100 % (docs/product-rules.md, Uploads). */
export function sizeBarLevel(usedBytes: number, limitBytes: number): SizeBarLevel {
  const ratio = usedBytes / limitBytes;
  if (ratio > 1) return "over";
  if (ratio > LIMITS.usageWarningRatio) return "warning";
  return "normal";
}
