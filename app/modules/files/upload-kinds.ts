import { LIMITS } from "~/modules/billing/limits";

/** What an upload is, what each kind accepts, and how a refusal reads to the user. */

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

const MB = 1024 * 1024;

export const KIND_TEXT = {
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

export function tooLarge(name: string, kind: UploadKind, cause?: unknown) {
  const maxBytes = LIMITS.item.maxFileBytes;
  return new UploadRejectedError(
    "FILE_TOO_LARGE",
    `${name} is too large. Maximum ${KIND_TEXT[kind].noun} size is ${Math.round(maxBytes / MB)}MB.`,
    { limitBytes: maxBytes, cause },
  );
}

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
