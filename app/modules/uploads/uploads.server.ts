import { type UploadHandler, unstable_composeUploadHandlers } from "@remix-run/node";
import { eq } from "drizzle-orm";
import { type FileTypeResult, fileTypeFromBuffer } from "file-type";
import { users } from "#db/schema";
import { FileTooLargeError } from "#storage/index";
import { checkingCsrfBeforeFiles, validateCsrf } from "~/modules/auth/csrf.server";
import {
  acceptedType,
  classifyThreat,
  detectStored,
  drain,
  HEAD_BYTES,
  readHead,
  recordRejection,
  sanitizeFilename,
  uploadKindOfContent,
  withExtension,
} from "~/modules/files/file-inspection.server";
import { reencodePhoto } from "~/modules/files/photo-processing.server";
import {
  deleteStoredFiles,
  stillReferencedKeys,
  storedKeys,
} from "~/modules/files/stored-files.server";
import {
  claimedUploadKind,
  KIND_TEXT,
  maxUploadBytesOf,
  type StoredUpload,
  UPLOAD_FIELD,
  UPLOAD_FORM_MAX_PARTS,
  type UploadContext,
  type UploadKind,
  VIDEO_TOO_LARGE_MESSAGE,
} from "~/modules/files/upload-kinds";
import {
  tooLarge,
  UNVERIFIED_UPLOAD_MESSAGE,
  UploadRejectedError,
} from "~/modules/files/upload-rejected.server";
import { db } from "~/platform/db.server";
import { DiskReserveReachedError } from "~/platform/disk-reserve.server";
import { BUSY_MESSAGE, isMemoryBudgetSpent } from "~/platform/memory-budget.server";
import {
  FormFieldTooLargeError,
  MultipartRefusedError,
  parseMultipartForm,
  textFieldReader,
} from "~/platform/multipart.server";
import { MULTIPART_TEXT_MAX_BYTES, passedBodyLimit } from "~/platform/route-body-limit";
import { storage } from "~/platform/storage.server";

/**
 * The upload pipeline (docs/product-rules.md, "Accounts and security"): a file's
 * type is decided by its first bytes, never by its name or the browser's
 * claim; a mismatch is refused before anything is stored and recorded in
 * `security_rejections`; everything else is streamed to storage under a
 * random key with the per-file limit enforced while reading. Photos are then
 * re-encoded (orientation applied, at most 1600 px, metadata such as GPS
 * dropped) and get a thumbnail. A failed request leaves no file behind.
 */

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
      throw new UploadRejectedError("UPLOAD_FAILED", `"${name}" is empty.`, { fileName: filename });
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
        { fileName: filename },
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
        original = await storage.put(all(), { maxBytes: maxUploadBytesOf(kind) });
      } catch (error) {
        if (error instanceof FileTooLargeError) throw tooLarge(name, kind, error, filename);
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
          ? await reencodePhoto(
              ctx,
              {
                key: original.key,
                name,
                size: original.size,
                claimedMimeType: contentType ?? "",
                detected: type,
              },
              written,
            )
          : {
              key: original.key,
              name: withExtension(name, type.ext, kind),
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

type UploadPart = Parameters<UploadHandler>[0];

/**
 * A form whose files may be of more than one kind: the first file chooses the
 * kind (`choose`), and every file of the form is then read by
 * createUploadHandler as that kind, bytes first, like any other upload of it.
 * `chosen` learns the kind.
 */
function createUploadHandlerByFirstFile(
  ctx: UploadContext,
  choose: (part: UploadPart) => Promise<{ kind: UploadKind; part: UploadPart }>,
  chosen: (kind: UploadKind) => void,
): UploadHandler {
  let handler: UploadHandler | null = null;
  return async (given) => {
    let part = given;
    if (!handler && part.name === UPLOAD_FIELD && part.filename) {
      const choice = await choose(part);
      part = choice.part;
      chosen(choice.kind);
      handler = createUploadHandler(choice.kind, ctx);
    }
    // Before any file: text fields and empty file inputs read the same for either kind.
    return (handler ?? createUploadHandler("file", ctx))(part);
  };
}

/** The phone's share sheet: the kind the first file claims (claimedUploadKind). */
const byClaim = async (part: UploadPart) => ({
  kind: claimedUploadKind(part.contentType, part.filename ?? ""),
  part,
});

/**
 * The API's upload without `?type=`: the kind the first file's bytes are
 * (uploadKindOfContent). The bytes read to judge it are handed on to the
 * kind's handler, which judges them again as that kind.
 */
async function byContent(part: UploadPart) {
  const { head, all } = await readHead(part.data, HEAD_BYTES);
  const kind = uploadKindOfContent(await fileTypeFromBuffer(head), part.filename ?? "");
  return { kind, part: { ...part, data: all() } };
}

/**
 * What withUpload reads: one kind, the one the first file claims (the share
 * sheet), or the one the first file's bytes are (the API).
 */
export type UploadKindChoice = UploadKind | "photo-or-file" | "by-content";

/** Known failures become a message for the user; anything else is passed on as it is. */
function asUploadError(error: unknown, kind: UploadKindChoice): unknown {
  if (error instanceof UploadRejectedError) return error;
  if (error instanceof FormFieldTooLargeError) {
    return new UploadRejectedError("UPLOAD_FAILED", error.message, { status: 413, cause: error });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // The reserve kept for the database reached (logged where it was) or the disk itself full.
  if (error instanceof DiskReserveReachedError || code === "ENOSPC" || code === "EDQUOT") {
    if (!(error instanceof DiskReserveReachedError)) console.error("Upload storage is full", error);
    return new UploadRejectedError(
      "UPLOAD_FAILED",
      "The file could not be saved right now. Please try again later.",
      { status: 507, cause: error },
    );
  }
  if (isMemoryBudgetSpent(error)) {
    return new UploadRejectedError("UPLOAD_FAILED", BUSY_MESSAGE, { status: 503, cause: error });
  }
  if (error instanceof MultipartRefusedError) {
    return new UploadRejectedError("UPLOAD_FAILED", error.message, { cause: error });
  }
  // The route's own limit: Add Video's and the API's upload take a clip, the others less.
  const limitBytes = passedBodyLimit(error);
  if (limitBytes !== null) {
    return new UploadRejectedError(
      "FILE_TOO_LARGE",
      kind === "video"
        ? VIDEO_TOO_LARGE_MESSAGE
        : `An upload can be up to ${Math.floor(limitBytes / (1024 * 1024))} MB in all.`,
      { status: 413, cause: error },
    );
  }
  return error;
}

/**
 * Files only from a confirmed address
 * (docs/decisions/0044-unverified-accounts.md): a throwaway account must not fill our storage. The first chosen
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
 * Parses a multipart form of at most UPLOAD_FORM_MAX_PARTS parts: `files`
 * parts through the upload pipeline (for a verified account only), text
 * fields (MULTIPART_TEXT_MAX_BYTES together, as a plain form) into the
 * FormData. With `csrf`, the page's token is checked before the first file
 * is read (checkingCsrfBeforeFiles).
 * On any failure (a refused file, a file too large, a dropped connection, a
 * full disk) every file already stored for this request is deleted before the
 * error is thrown.
 */
export async function parseUploadForm(
  request: Request,
  kind: UploadKindChoice,
  userId: number,
  options: { maxFiles?: number; csrf?: boolean } = {},
): Promise<Upload> {
  const stored: StoredUpload[] = [];
  let readAs: UploadKind = kind === "photo-or-file" || kind === "by-content" ? "file" : kind;
  const ctx = { request, userId, stored, maxFiles: options.maxFiles };
  const fieldsRead = new FormData();
  const readText = textFieldReader(MULTIPART_TEXT_MAX_BYTES);
  const readTextField: UploadHandler = async (part) =>
    part.filename === undefined && part.name !== UPLOAD_FIELD ? readText(part) : undefined;
  const composed = unstable_composeUploadHandlers(
    !hasVerifiedEmail(userId)
      ? refuseEveryFile
      : kind === "photo-or-file" || kind === "by-content"
        ? createUploadHandlerByFirstFile(
            ctx,
            kind === "photo-or-file" ? byClaim : byContent,
            (chosen) => {
              readAs = chosen;
            },
          )
        : createUploadHandler(kind, ctx),
    async (part) => {
      const value = await readTextField(part);
      if (typeof value === "string") fieldsRead.append(part.name, value);
      return value;
    },
  );
  const handler = options.csrf ? checkingCsrfBeforeFiles(request, composed) : composed;
  try {
    const formData = await parseMultipartForm(request, handler, {
      maxParts: UPLOAD_FORM_MAX_PARTS,
      tooManyPartsMessage: `The form has more than ${UPLOAD_FORM_MAX_PARTS} fields and files.`,
    });
    return { formData, stored, kind: readAs };
  } catch (error) {
    await deleteStoredFiles(storedKeys(stored));
    const refusal = asUploadError(error, kind);
    if (refusal instanceof UploadRejectedError) refusal.fieldsRead = fieldsRead;
    throw refusal;
  }
}

/** `kind`: what the files were read as (when the first file chose, "file" when none came). */
export type Upload = { formData: FormData; stored: StoredUpload[]; kind: UploadKind };

/**
 * The one way every upload route and the API take files in: the multipart
 * form is read through the upload pipeline (parseUploadForm: a refusal while
 * reading is thrown, as an UploadRejectedError or QuotaExceededError, with
 * nothing kept); a page's CSRF token is checked once the form is read (files
 * stream to storage first; the API passes `csrf: false`, a bearer token being
 * its proof); then `use` runs with the form and the stored files. Afterwards,
 * whether `use` saved, answered a refusal or threw, every stored file that
 * nothing refers to (an item, a draft) is deleted, so no path keeps an orphan
 * (docs/decisions/0115-one-upload-helper.md).
 */
export async function withUpload<T>(
  request: Request,
  options: { kind: UploadKindChoice; userId: number; maxFiles?: number; csrf: boolean },
  use: (upload: Upload) => T | Promise<T>,
): Promise<T> {
  const upload = await parseUploadForm(request, options.kind, options.userId, {
    maxFiles: options.maxFiles,
    csrf: options.csrf,
  });
  try {
    if (options.csrf) await validateCsrf(request, upload.formData);
    return await use(upload);
  } finally {
    const keys = storedKeys(upload.stored);
    const kept = stillReferencedKeys(keys);
    await deleteStoredFiles(keys.filter((key) => !kept.has(key)));
  }
}
