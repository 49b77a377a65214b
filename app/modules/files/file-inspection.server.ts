import { Readable } from "node:stream";
import { type FileTypeResult, fileTypeFromStream } from "file-type";
import { securityRejections } from "#db/schema";
import { db } from "~/platform/db.server";
import { clientIp, userAgent } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { storage } from "~/platform/storage.server";
import type { UploadContext, UploadKind } from "./upload-kinds";

/**
 * What a file really is, read from its bytes: the type to store it as, a
 * name safe to show, and, for a refused file, the threat it looks like and
 * the record of it in `security_rejections`.
 */

/** Enough for every signature file-type knows. */
export const HEAD_BYTES = 4100;
const NAME_MAX_LENGTH = 200;
const PHOTO_TYPES = new Set(["jpg", "png", "apng", "gif", "webp", "heic", "avif"]);

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

/** Phones' and cameras' containers; what is inside is ffprobe's to judge (video-processing.server.ts). */
const VIDEO_TYPES = new Set(["mp4", "m4v", "mov", "webm"]);

export type AcceptedType = { ext: string; mime: string };

/** The type to store the upload as, or null when the kind does not allow it. */
export function acceptedType(
  kind: UploadKind,
  detected: FileTypeResult | undefined,
  name: string,
): AcceptedType | null {
  if (!detected) return null;
  if (kind === "photo") return PHOTO_TYPES.has(detected.ext) ? detected : null;
  if (kind === "video") return VIDEO_TYPES.has(detected.ext) ? detected : null;
  if (detected.ext === "pdf") return { ext: "pdf", mime: "application/pdf" };
  if (detected.ext === "docx") return detected;
  // An OLE container is also .xls, .ppt, .msg or .msi; only a .doc name says Word.
  if (detected.ext === "cfb" && /\.doc$/i.test(name)) {
    return { ext: "doc", mime: "application/msword" };
  }
  return null;
}

/**
 * The kind a file is by its bytes, for an upload that does not say (the API's
 * upload without `?type=`): a photo or a video when its bytes are one, else a
 * file, which the file checks then accept or refuse with their own message.
 */
export function uploadKindOfContent(
  detected: FileTypeResult | undefined,
  name: string,
): UploadKind {
  if (acceptedType("photo", detected, name)) return "photo";
  if (acceptedType("video", detected, name)) return "video";
  return "file";
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
export function withExtension(name: string, ext: string, noun: string) {
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
export async function readHead(data: AsyncIterable<Uint8Array>, want: number) {
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

export async function drain(data: AsyncIterable<Uint8Array>) {
  for await (const _chunk of data) {
    // Discarded: a part we do not accept must still be read past.
  }
}

/** Detects the type of a stored file from its whole content. */
export async function detectStored(key: string) {
  const stream = await storage.get(key);
  if (!stream) throw new Error(`Stored upload ${key} disappeared`);
  try {
    // As a web stream: TypeScript resolves file-type's browser typings, which take no Node stream.
    return await fileTypeFromStream(Readable.toWeb(stream) as ReadableStream<Uint8Array>);
  } finally {
    stream.destroy();
  }
}

export type Threat = { threatType: string; threatLevel: string; signatures: string[] };

export function classifyThreat(detected: FileTypeResult | undefined, head: Buffer): Threat {
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

export function recordRejection(
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
