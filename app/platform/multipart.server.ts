import {
  MaxPartSizeExceededError,
  type UploadHandler,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
} from "@remix-run/node";
import { MULTIPART_TEXT_MAX_BYTES } from "./route-body-limit";

/**
 * Every multipart form the app reads passes here
 * (docs/decisions/0102-multipart-names-of-any-bytes.md). Remix's parser
 * (@web3-storage/multipart-parser) splits a part's Content-Disposition on
 * every `;` and `=`, even inside quotes, and decodes header bytes as strict
 * UTF-8, so a file named `a;b.jpg`, `a=b.jpg` or with Latin-1 bytes made it
 * throw (a 500). Each part's headers are therefore rewritten on the way in:
 * read leniently, then given to the parser as valid UTF-8 with the name and
 * filename percent-encoded, and decoded again before any handler sees them.
 * Whatever still cannot be read is a MultipartRefusedError (a 400), as is a
 * form with more parts than its reader allows.
 */
export class MultipartRefusedError extends Error {}

export const UNREADABLE_FORM_MESSAGE = "The upload could not be read. Please try again.";

/** Longer part headers are not a browser's. */
const PART_HEADERS_MAX_BYTES = 16 * 1024;

type Disposition = { name?: string; filename?: string };

/** RFC 5987's `charset'language'percent-encoded`; null when it does not decode. */
function extendedValue(value: string): string | null {
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!match) return null;
  const [, charset = "", encoded = ""] = match;
  try {
    if (/^utf-8$/i.test(charset)) return decodeURIComponent(encoded);
    if (/^iso-8859-1$/i.test(charset)) {
      return encoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * The parameters of a Content-Disposition value, read as browsers write them:
 * a quoted value runs to its closing quote whatever it holds (a browser
 * writes `"` as %22, so `\"` is an escaped quote only where it cannot be a
 * backslash ending the name), an unquoted one to the next `;`. Never throws.
 */
export function readDisposition(value: string): Disposition {
  const params = new Map<string, string>();
  let at = value.indexOf(";");
  while (at !== -1 && at < value.length) {
    at += 1;
    const equals = value.indexOf("=", at);
    const nextSemicolon = value.indexOf(";", at);
    if (equals === -1 || (nextSemicolon !== -1 && nextSemicolon < equals)) {
      at = nextSemicolon;
      continue;
    }
    const key = value.slice(at, equals).trim().toLowerCase();
    let cursor = equals + 1;
    while (value[cursor] === " " || value[cursor] === "\t") cursor += 1;
    let text = "";
    if (value[cursor] === '"') {
      cursor += 1;
      while (cursor < value.length && value[cursor] !== '"') {
        if (value.startsWith('\\"', cursor) && !/^\s*(;|$)/.test(value.slice(cursor + 2))) {
          cursor += 1;
        }
        text += value[cursor];
        cursor += 1;
      }
      at = value.indexOf(";", cursor);
    } else {
      const end = value.indexOf(";", cursor);
      text = value.slice(cursor, end === -1 ? value.length : end).trim();
      at = end;
    }
    if (!params.has(key)) params.set(key, text);
  }
  const extended = params.has("filename*") ? extendedValue(params.get("filename*") ?? "") : null;
  return { name: params.get("name"), filename: extended ?? params.get("filename") };
}

const encoder = new TextEncoder();
const lenientUtf8 = new TextDecoder("utf-8", { fatal: false });
const CRLF = "\r\n";

/** One part's header block, leniently decoded, re-encoded as the parser can read it. */
function rewriteHeaders(block: Uint8Array): Uint8Array {
  const lines = lenientUtf8.decode(block).split(CRLF);
  const rewritten = lines.map((line) => {
    const colon = line.indexOf(":");
    if (colon === -1 || line.slice(0, colon).trim().toLowerCase() !== "content-disposition") {
      return line;
    }
    const { name, filename } = readDisposition(line.slice(colon + 1));
    let value = "form-data";
    if (name !== undefined) value += `; name="${encodeURIComponent(name)}"`;
    if (filename !== undefined) value += `; filename="${encodeURIComponent(filename)}"`;
    return `Content-Disposition: ${value}`;
  });
  return encoder.encode(rewritten.join(CRLF));
}

/**
 * Passes a multipart body through, rewriting the header block after each
 * boundary (the same `--boundary` the parser looks for, at any offset);
 * bytes that might start a boundary split across chunks are held back.
 */
export function partHeaderRewriter(boundary: string) {
  const delimiter = Buffer.from(`--${boundary}`);
  const headersEnd = Buffer.from(`${CRLF}${CRLF}`);
  let held: Buffer = Buffer.alloc(0);
  let inHeaders = false;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let data: Buffer = held.length
        ? Buffer.concat([held, chunk])
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      held = Buffer.alloc(0);
      for (;;) {
        if (inHeaders) {
          const end = data.indexOf(headersEnd);
          if (end === -1) {
            if (data.length > PART_HEADERS_MAX_BYTES) {
              controller.error(new MultipartRefusedError(UNREADABLE_FORM_MESSAGE));
            } else held = data;
            return;
          }
          if (end > 0) controller.enqueue(rewriteHeaders(data.subarray(0, end)));
          data = data.subarray(end);
          inHeaders = false;
          continue;
        }
        const at = data.indexOf(delimiter);
        if (at === -1 || data.length < at + delimiter.length + 2) {
          const keep = at === -1 ? Math.min(data.length, delimiter.length - 1) : data.length - at;
          if (data.length > keep) controller.enqueue(data.subarray(0, data.length - keep));
          held = data.subarray(data.length - keep);
          return;
        }
        const after = at + delimiter.length;
        controller.enqueue(data.subarray(0, after));
        data = data.subarray(after);
        // A boundary then CRLF opens a part's headers; then `--` closes the form.
        inHeaders = data[0] === 0x0d && data[1] === 0x0a;
      }
    },
    flush(controller) {
      if (held.length) controller.enqueue(held);
    },
  });
}

function decodedOr(value: string) {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Remix's parseMultipartFormData over a body whose part headers were
 * rewritten, with names and filenames (basename only, as Remix does) given
 * back to `handler` as they were sent; at most `maxParts` parts.
 */
export async function parseMultipartForm(
  request: Request,
  handler: UploadHandler,
  { maxParts, tooManyPartsMessage }: { maxParts: number; tooManyPartsMessage: string },
): Promise<FormData> {
  const contentType = request.headers.get("content-type") ?? "";
  const boundary = /;\s*boundary="?([^";]+)"?/i.exec(contentType)?.[1]?.trim();
  if (!request.body || !boundary || !/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new MultipartRefusedError(UNREADABLE_FORM_MESSAGE);
  }
  // The parser wants exactly this spelling (lower case, the boundary unquoted).
  const headers = new Headers(request.headers);
  headers.set("content-type", `multipart/form-data; boundary=${boundary}`);
  const rewritten = new Request(request, {
    headers,
    body: request.body.pipeThrough(partHeaderRewriter(boundary)),
    duplex: "half",
  } as RequestInit);
  let parts = 0;
  try {
    return await unstable_parseMultipartFormData(rewritten, async (part) => {
      parts += 1;
      if (parts > maxParts) throw new MultipartRefusedError(tooManyPartsMessage);
      part.name = decodedOr(part.name);
      if (part.filename !== undefined) {
        part.filename = decodedOr(part.filename).split(/[/\\]/).pop();
      }
      return handler(part);
    });
  } catch (error) {
    if (
      error instanceof Error &&
      (error.message === "Could not parse content as FormData." ||
        error.message.startsWith("malformed "))
    ) {
      throw new MultipartRefusedError(UNREADABLE_FORM_MESSAGE, { cause: error });
    }
    throw error;
  }
}

/** A text field past its cap, or a file sent to a form that takes none: a 413 naming the field. */
export class FormFieldTooLargeError extends Error {
  constructor(
    readonly field: string,
    message = `The field "${field}" is too long: a form's text can be up to ${MULTIPART_TEXT_MAX_BYTES / 1024} KB in all.`,
  ) {
    super(message);
  }
}

/** The most text fields a form without files may have. */
const TEXT_FORM_MAX_PARTS = 100;

/**
 * Reads a multipart form's text fields (an upload handler's text half),
 * counted together so that all of them are at most `maxBytes`; the field
 * that passes it is a FormFieldTooLargeError.
 */
export function textFieldReader(maxBytes: number) {
  let total = 0;
  const read = unstable_createMemoryUploadHandler({
    maxPartSize: maxBytes,
    filter: ({ filename }) => filename === undefined,
  });
  return async (part: Parameters<UploadHandler>[0]) => {
    let value: Awaited<ReturnType<UploadHandler>>;
    try {
      value = await read(part);
    } catch (error) {
      if (error instanceof MaxPartSizeExceededError) throw new FormFieldTooLargeError(part.name);
      throw error;
    }
    if (typeof value === "string") {
      total += Buffer.byteLength(value);
      if (total > maxBytes) throw new FormFieldTooLargeError(part.name);
    }
    return value;
  };
}

/**
 * A multipart form read as a plain form is: its text fields only, all of
 * them at most MULTIPART_TEXT_MAX_BYTES, never a byte more held. A file part
 * is refused before it is read, as a field too large: a form that is not an
 * upload takes none (docs/memory-budget.md).
 */
export async function readTextOnlyMultipartForm(request: Request): Promise<FormData> {
  const readText = textFieldReader(MULTIPART_TEXT_MAX_BYTES);
  return parseMultipartForm(
    request,
    async (part) => {
      if (part.filename !== undefined) {
        throw new FormFieldTooLargeError(
          part.name,
          `The field "${part.name}" holds a file, which this form does not take.`,
        );
      }
      return readText(part);
    },
    {
      maxParts: TEXT_FORM_MAX_PARTS,
      tooManyPartsMessage: `The form has more than ${TEXT_FORM_MAX_PARTS} fields.`,
    },
  );
}

export function isMultipartForm(request: Request) {
  return /^multipart\/form-data\s*;/i.test(request.headers.get("content-type") ?? "");
}
