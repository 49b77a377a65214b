import EmailReplyParser from "email-reply-parser";
import type { Attachment, ParsedMail } from "mailparser";
import { LIMITS } from "~/modules/billing/limits";
import { urlsInText } from "~/modules/items/capture.server";

/**
 * What a message sent to a folder's address becomes (docs/decisions/0158-save-by-email.md):
 * - its links, one link item of up to five, the rest listed in a musing;
 * - its photos (JPEG, PNG, GIF, WebP, HEIC), photo items of up to three each;
 * - its PDF and Word files, file items of up to five each;
 * - with none of those, a musing: the subject as title, the text as note.
 * The text, without quoted replies and signatures, is the first item's comment.
 * Pictures that are part of the message's own layout (multipart/related, such
 * as a signature's logo) are not photos the person meant to save.
 */
/** What a plan reads of an attachment: its bytes are the caller's business. */
type Described = Pick<Attachment, "contentType" | "filename"> & { related?: boolean };

export type SavePlan<A extends Described> = {
  title: string;
  text: string;
  links: string[];
  moreLinks: string[];
  photos: A[][];
  files: A[][];
  /** Attachments that are none of the kinds above, by name, for the answer. */
  skipped: string[];
};

const PHOTO_TYPES = new Set([
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
  "image/heic",
  "image/heif",
]);
/** Mail programs that do not know HEIC send it as bytes; its name says what it is. */
const HEIC_NAME = /\.(heic|heif)$/i;

/** A photo by its declared type; the upload pipeline then decides by the bytes. */
function isPhoto(attachment: Described) {
  const type = attachment.contentType.toLowerCase();
  if (PHOTO_TYPES.has(type)) return true;
  return type === "application/octet-stream" && HEIC_NAME.test(attachment.filename ?? "");
}
const FILE_TYPES = new Set([
  "application/pdf",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
]);

/** "Fwd: Re: FW: Soup" → "Soup". */
export function titleFromSubject(subject: string | undefined) {
  const bare = (subject ?? "").replace(/^(\s*(re|fwd?|aw|wg|tr)\s*:\s*)+/i, "").trim();
  return bare.slice(0, LIMITS.item.titleMaxLength).trim();
}

/** Where mail programs start a forwarded message (Gmail, Apple Mail, Outlook). */
const FORWARD_MARKER =
  /^[ \t>]*(?:-{2,}\s*Forwarded message\s*-*|Begin forwarded message:|-{2,}\s*Original Message\s*-*)[ \t]*$/im;

/**
 * The words worth keeping: the person's own (quoted replies and signatures
 * cut by email-reply-parser, GitHub's rules) and, when they forwarded a
 * message, that message's text without its From/Date/Subject/To lines. The
 * forwarded part is kept whole: it is what they wanted to save, and its
 * "--------" banner would read as a signature to the parser.
 */
export function ownWords(text: string) {
  const normalized = text.replace(/\r\n?/g, "\n");
  const marker = FORWARD_MARKER.exec(normalized);
  const before = marker ? normalized.slice(0, marker.index) : normalized;
  const mine = new EmailReplyParser().read(before).getVisibleText().trim();
  let forwarded = "";
  if (marker) {
    const rest = normalized.slice(marker.index + marker[0].length).replace(/^\n+/, "");
    const headerEnd = rest.search(/\n\s*\n/);
    forwarded = (headerEnd === -1 ? "" : rest.slice(headerEnd)).trim();
  }
  return [mine, forwarded]
    .filter(Boolean)
    .join("\n\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < list.length; start += size) out.push(list.slice(start, start + size));
  return out;
}

export function planSave<A extends Described>(
  message: Pick<ParsedMail, "subject" | "text"> & { attachments: A[] },
): SavePlan<A> {
  const body = ownWords(message.text ?? "");
  const urls = urlsInText(message.text ?? "");
  const links = urls.slice(0, LIMITS.item.maxLinks);
  // The addresses are the items' own; what is left around them is the comment.
  let text = body;
  // mailparser writes an HTML-only message's links as "label [address]": the brackets go too.
  for (const url of urls) text = text.split(`[${url}]`).join("\uFFFC").split(url).join("\uFFFC");
  text = text.replace(/\uFFFC[,;.]?/g, " ");
  text = text
    .replace(/[ \t]+/g, " ")
    .replace(/ *\n */g, "\n")
    .trim()
    .slice(0, LIMITS.item.textMaxLength)
    .trim();
  const photos: A[] = [];
  const files: A[] = [];
  const skipped: string[] = [];
  for (const attachment of message.attachments) {
    const type = attachment.contentType.toLowerCase();
    if (isPhoto(attachment)) {
      if (!attachment.related) photos.push(attachment);
    } else if (FILE_TYPES.has(type)) {
      files.push(attachment);
    } else {
      skipped.push(attachment.filename ?? type);
    }
  }
  const title =
    titleFromSubject(message.subject) ||
    photos[0]?.filename ||
    files[0]?.filename ||
    (links[0] ? new URL(links[0]).hostname.replace(/^www\./, "") : "") ||
    "Saved by e-mail";
  return {
    title: title.slice(0, LIMITS.item.titleMaxLength),
    text,
    links,
    moreLinks: urls.slice(LIMITS.item.maxLinks),
    photos: chunks(photos, LIMITS.item.maxPhotos),
    files: chunks(files, LIMITS.item.maxFiles),
    skipped,
  };
}
