import { RuleError } from "~/platform/errors.server";
import { KIND_TEXT, maxUploadBytesOf, type UploadKind } from "./upload-kinds";

/**
 * Upload refusals. Server-only, unlike upload-kinds.ts, whose constants pages
 * import: a class extending a server module's class cannot reach the browser.
 */

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

/**
 * A refusal the user can act on: `message` is written for them. A `RuleError`
 * with its own HTTP status, which the pages and the API answer with
 * (docs/decisions/0113-the-last-errors-join-the-vocabulary.md).
 */
export class UploadRejectedError extends RuleError {
  override name = "UploadRejectedError";
  readonly status: number;
  /** For FILE_TOO_LARGE: the limit, so the page can say it. */
  readonly limitBytes?: number;
  /** The text fields read before the refusal (those above the files), to show them again. */
  fieldsRead?: FormData;
  /** The refused file's name as the browser sent it, so the page can mark it and drop it from the choice. */
  readonly fileName?: string;

  constructor(
    readonly code: UploadErrorCode,
    message: string,
    options: { status?: number; limitBytes?: number; fileName?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status ?? DEFAULT_STATUS[code];
    this.limitBytes = options.limitBytes;
    this.fileName = options.fileName;
  }
}

const MB = 1024 * 1024;

export function tooLarge(name: string, kind: UploadKind, cause?: unknown, fileName?: string) {
  const maxBytes = maxUploadBytesOf(kind);
  return new UploadRejectedError(
    "FILE_TOO_LARGE",
    `${name} is too large. Maximum ${KIND_TEXT[kind].noun} size is ${Math.round(maxBytes / MB)}MB.`,
    { limitBytes: maxBytes, fileName, cause },
  );
}
