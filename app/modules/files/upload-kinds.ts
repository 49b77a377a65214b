import { LIMITS } from "~/modules/plans/limits";

/** What an upload is, what each kind accepts, and how a refusal reads to the user. */

export type UploadKind = "photo" | "file" | "video";

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
  /** Photos whose camera wrote it: the day taken, "2019-06-01" (photo-taken.server.ts). */
  takenOn?: string;
};

export type UploadContext = {
  request: Request;
  userId: number;
  /** Filled as files are stored: all deleted if reading fails, and afterwards those nothing refers to (withUpload). */
  stored: StoredUpload[];
  /** Most files accepted in this request; defaults to the per-item limit of the kind. */
  maxFiles?: number;
};

/** Names a photo goes by; HEIC and HEIF are phones' own, judged by the pipeline like any photo. */
const PHOTO_NAME = /\.(?:jpe?g|png|gif|webp|heic|heif)$/i;
const VIDEO_NAME = /\.(?:mp4|m4v|mov|webm)$/i;

/**
 * The kind a file says it is, for a form that may carry either (the phone's
 * share sheet): a claimed `image/*` type or a photo's name makes it a photo,
 * a claimed `video/*` type or a clip's name a video, anything else a file.
 * Only the choice of checks: the bytes are judged by the pipeline as for any
 * upload of that kind.
 */
export function claimedUploadKind(contentType: string | undefined, filename: string): UploadKind {
  const claimed = contentType?.trim().toLowerCase() ?? "";
  if (claimed.startsWith("image/")) return "photo";
  if (claimed.startsWith("video/")) return "video";
  if (PHOTO_NAME.test(filename)) return "photo";
  return VIDEO_NAME.test(filename) ? "video" : "file";
}

/** The form field that carries files. */
export const UPLOAD_FIELD = "files";

export const KIND_TEXT = {
  photo: {
    noun: "photo",
    allowed: "Photos must be JPEG, PNG, GIF, WebP or HEIC.",
    maxFilesMessage: () => `Photo limit reached: ${LIMITS.item.maxPhotos} photos per item.`,
    defaultMaxFiles: LIMITS.item.maxPhotos,
  },
  file: {
    noun: "file",
    allowed: "Files must be PDF or Word documents (.pdf, .doc or .docx).",
    maxFilesMessage: () => `File limit reached: ${LIMITS.item.maxFiles} files per item.`,
    defaultMaxFiles: LIMITS.item.maxFiles,
  },
  video: {
    noun: "video",
    allowed: "Videos must be MP4, MOV or WebM.",
    maxFilesMessage: () => "One video per item.",
    defaultMaxFiles: 1,
  },
} as const;

/** The most one stored upload of the kind may hold: a clip as uploaded is larger than any photo or file. */
export const maxUploadBytesOf = (kind: UploadKind) =>
  kind === "video" ? LIMITS.video.maxUploadBytes : LIMITS.item.maxFileBytes;

/**
 * Parts (files and text fields) one upload form may send: the most files of
 * an item and the fields of the widest form (ten folders chosen, title, text,
 * token) fit with room to spare; more is not one of our forms.
 */
export const UPLOAD_FORM_MAX_PARTS = 64;

/**
 * The most an upload request may send (the routes' `bodyLimit`,
 * docs/decisions/0101-body-limits-by-route.md): a full item's files at the
 * per-file limit, plus 1 MB for part headers and text fields.
 */
export const UPLOAD_BODY_MAX_BYTES =
  Math.max(LIMITS.item.maxPhotos, LIMITS.item.maxFiles) * LIMITS.item.maxFileBytes + 1024 * 1024;

/** The same for a form that may carry a video: one clip, streamed to disk, never held in memory. */
export const VIDEO_UPLOAD_BODY_MAX_BYTES = LIMITS.video.maxUploadBytes + 1024 * 1024;

/** A post to a video's door past its limit, told in the clip's terms rather than a photo upload's. */
export const VIDEO_TOO_LARGE_MESSAGE = `A video can be up to ${Math.round(
  LIMITS.video.maxUploadBytes / (1024 * 1024),
)} MB.`;
