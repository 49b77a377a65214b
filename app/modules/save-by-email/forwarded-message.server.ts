import EmailReplyParser from "email-reply-parser";
import type { Attachment, ParsedMail } from "mailparser";
import { urlsInText } from "~/modules/items/capture.server";
import { LIMITS } from "~/modules/plans/limits";

/**
 * What a message sent to a folder's address becomes (docs/decisions/0158-save-by-email.md,
 * docs/decisions/0197-one-message-one-thought.md):
 * - its links, one link item of up to five, the rest listed in a musing;
 * - its photos (JPEG, PNG, GIF, WebP, HEIC), photo items of up to three each;
 * - its videos (MP4, QuickTime, WebM), a video item each, prepared in the background;
 * - its PDF and Word files, file items of up to five each;
 * - with none of those, a musing: the subject as title, the text as note.
 * One message is one thought: its words (without quoted replies and
 * signatures, its links written out) are the comment of every item it makes,
 * and its items are titled by its subject, the first as it is and the others
 * numbered after it ("Lentil soup", "Lentil soup (2)"), saved one after
 * another in the folder's order. Pictures that are part of the message's own
 * layout (multipart/related, such as a signature's logo) are not photos the
 * person meant to save.
 */
/** What a plan reads of an attachment: its bytes are the caller's business. */
type Described = Pick<Attachment, "contentType" | "filename"> & { related?: boolean };

/**
 * One item a message makes, in the folder's order. Every item carries the
 * message's words (`SavePlan.note`): a link, photo or file as its comment, a
 * musing as its note.
 */
export type PlannedItem<A extends Described> =
  | { type: "link"; title: string; urls: string[] }
  | { type: "musing"; title: string; note: string }
  | { type: "photo" | "file" | "video"; title: string; attachments: A[] };

export type SavePlan<A extends Described> = {
  /** The subject, the title of the first item; the others are numbered after it. */
  title: string;
  /** The person's words with their links written out; "" when there are none, and the items wait for a note. */
  note: string;
  items: PlannedItem<A>[];
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
const VIDEO_TYPES = new Set(["video/mp4", "video/quicktime", "video/webm", "video/x-m4v"]);
const VIDEO_NAME = /\.(mp4|m4v|mov|webm)$/i;

/** A clip by its declared type, or its name when sent as bytes; the upload pipeline then decides by the bytes. */
function isVideo(attachment: Described) {
  const type = attachment.contentType.toLowerCase();
  if (VIDEO_TYPES.has(type)) return true;
  return type === "application/octet-stream" && VIDEO_NAME.test(attachment.filename ?? "");
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

/** An address in a text, up to a space or a bracket that closes it. */
const URL_CHARS = String.raw`https?:\/\/[^\s<>\[\]"]+`;

/**
 * The text with each link's address written out once, in round brackets after
 * its words. mailparser writes an HTML-only message's links "label [address]"
 * (html-to-text may wrap the line before the bracket), and mail programs
 * write a plain-text part's "label <address>": both read "label (address)".
 * A link whose words are its address reads as the address alone. E-mail
 * addresses and inline pictures in brackets ("Bo [bo@example.com]",
 * "[cid:logo]") are noise in a note and go.
 */
export function linksWrittenOut(text: string) {
  // No repeated spaces in these patterns: each is linear in the text (up to 1 MB).
  const bracketed = new RegExp(String.raw`[ \n]?(?:\[(${URL_CHARS})\]|<(${URL_CHARS})>)`, "gi");
  return text
    .replace(bracketed, (_, square: string | undefined, angled: string | undefined, at: number) => {
      const url = (square ?? angled)!;
      return text.slice(Math.max(0, at - url.length), at) === url ? "" : ` (${url})`;
    })
    .replace(/ ?\[(?:mailto:)?[^\s[\]@]+@[^\s[\]]+\]/gi, "")
    .replace(/ ?\[cid:[^\s[\]]*\]/gi, "");
}

/** Words, not only addresses and punctuation: what makes a note. */
function hasWords(text: string) {
  return /[\p{L}\p{N}]/u.test(text.replace(new RegExp(URL_CHARS, "gi"), ""));
}

/** `text` within `max` characters, cut before a word (or an address) it would break. */
export function clip(text: string, max: number) {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  // One word longer than the note is cut where it must be.
  const atWord = /\s/.test(text[max]!) ? cut : cut.replace(/\S+$/, "");
  return (atWord.trim() || cut).trim();
}

/** The first item has the subject; the others are numbered after it, "Soup (2)". */
export function numberedTitle(title: string, index: number) {
  if (index === 0) return title.slice(0, LIMITS.item.titleMaxLength);
  const suffix = ` (${index + 1})`;
  return `${title.slice(0, LIMITS.item.titleMaxLength - suffix.length).trim()}${suffix}`;
}

/** The words, then the further links they do not already name, within the note's limit. */
function withLinks(words: string, links: string[]) {
  const missing = links.filter((url) => !words.includes(url)).join("\n");
  if (!missing) return words;
  if (!words) return clip(missing, LIMITS.item.textMaxLength);
  const room = LIMITS.item.textMaxLength - missing.length - 2;
  return room > 0 ? `${clip(words, room)}\n\n${missing}` : clip(missing, LIMITS.item.textMaxLength);
}

type Untitled<A extends Described> =
  PlannedItem<A> extends infer Item
    ? Item extends PlannedItem<A>
      ? Omit<Item, "title">
      : never
    : never;

export function planSave<A extends Described>(
  message: Pick<ParsedMail, "subject" | "text"> & { attachments: A[] },
): SavePlan<A> {
  const source = linksWrittenOut(message.text ?? "");
  const urls = urlsInText(source);
  const words = clip(
    ownWords(source)
      .replace(/[ \t]+/g, " ")
      .replace(/ *\n */g, "\n")
      .trim(),
    LIMITS.item.textMaxLength,
  );
  // Only addresses ("https://…" alone) are no note: the item waits for one.
  const note = hasWords(words) ? words : "";
  const photos: A[] = [];
  const videos: A[] = [];
  const files: A[] = [];
  const skipped: string[] = [];
  for (const attachment of message.attachments) {
    const type = attachment.contentType.toLowerCase();
    if (isPhoto(attachment)) {
      if (!attachment.related) photos.push(attachment);
    } else if (isVideo(attachment)) {
      videos.push(attachment);
    } else if (FILE_TYPES.has(type)) {
      files.push(attachment);
    } else {
      skipped.push(attachment.filename ?? type);
    }
  }
  const title =
    titleFromSubject(message.subject) ||
    photos[0]?.filename ||
    videos[0]?.filename ||
    files[0]?.filename ||
    (urls[0] ? new URL(urls[0]).hostname.replace(/^www\./, "") : "") ||
    "Saved by e-mail";
  const items: Untitled<A>[] = [];
  if (urls.length > 0) items.push({ type: "link", urls: urls.slice(0, LIMITS.item.maxLinks) });
  const moreLinks = urls.slice(LIMITS.item.maxLinks);
  if (moreLinks.length > 0) items.push({ type: "musing", note: withLinks(note, moreLinks) });
  for (const group of chunks(photos, LIMITS.item.maxPhotos)) {
    items.push({ type: "photo", attachments: group });
  }
  // One clip an item (docs/decisions/0204-videos-are-their-own-item.md).
  for (const video of videos) items.push({ type: "video", attachments: [video] });
  for (const group of chunks(files, LIMITS.item.maxFiles)) {
    items.push({ type: "file", attachments: group });
  }
  if (items.length === 0 && note) items.push({ type: "musing", note });
  return {
    title: numberedTitle(title, 0),
    note,
    items: items.map(
      (item, index) => ({ ...item, title: numberedTitle(title, index) }) as PlannedItem<A>,
    ),
    skipped,
  };
}
