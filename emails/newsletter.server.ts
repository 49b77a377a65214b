import type { Attachment } from "nodemailer/lib/mailer";
import { createElement } from "react";
import {
  Newsletter,
  type NewsletterInput,
  type NewsletterItem,
  PLACEHOLDER,
  photoCid,
  posterCid,
  previewCid,
  senderFirstName,
} from "#emails/newsletter";
import { HEADER_IMAGE_CID } from "#emails/newsletter-themes";
import { renderEmailHtml, renderEmailText } from "#emails/render.server";
import type { FileStorage } from "#storage/index";

export type { NewsletterInput } from "#emails/newsletter";

/**
 * The folder newsletter, rendered once per send and personalised per
 * recipient by string replacement: rendering and CSS inlining (juice) cost
 * tens of milliseconds, a replacement microseconds.
 *
 *   const rendered = renderNewsletter({ folder, sender, items });
 *   for (const recipient of recipients) {
 *     const { html, text } = personalize(rendered, { email, unsubscribeUrl, answerUrlFor });
 *     await sendEmail({ to, subject: rendered.subject, html, text,
 *                       attachments: attachmentsFor(rendered, storage) }); // fresh streams per message
 *   }
 */
export type RenderedNewsletter = {
  subject: string;
  /** With the placeholders in place; see `personalize`. */
  html: string;
  text: string;
  /** Photos and link preview pictures (with `cid`, shown inline) and files (attached), in item order. */
  attachments: {
    filename: string;
    storageKey: string;
    contentType: string;
    cid?: string;
    size: number;
  }[];
  /** The sender's header image (branding), stored once with the account and sent inline by `cid`. */
  headerImage: { content: Buffer; contentType: string } | null;
  /**
   * How the bodies travel: chosen once per send by nodemailer's own rule, so
   * nodemailer need not scan both bodies of every recipient's copy again
   * (each copy differs only by ASCII links).
   */
  textEncoding: "quoted-printable" | "base64";
  /** UTF-8 bytes of the HTML part. Gmail clips an HTML part above about 102 KB. */
  htmlBytes: number;
  /**
   * HTML + text + the attachments' stored sizes. On the wire the message is
   * about a third larger (attachments travel base64-encoded).
   */
  totalBytes: number;
};

/** Gmail shows only this much of an HTML part, the rest behind "View entire message". */
export const GMAIL_CLIP_BYTES = 100 * 1024;

/** `"Family" from Ada: 3 things`. Plain words: no capitals, no exclamation marks. */
export function newsletterSubject(input: NewsletterInput) {
  const count = input.items.length;
  const name = input.folder.name.replace(/\s+/g, " ").trim();
  const from = senderFirstName(input.sender).replace(/\s+/g, " ");
  return `"${name}" from ${from}: ${count} ${count === 1 ? "thing" : "things"}`;
}

// Sender text that happens to spell a placeholder must not be personalised:
// a zero-width space (text) or a percent-encoding (URLs) breaks it up.
const neutral = (value: string) => value.replace(PLACEHOLDER, "%\u200b%$1%\u200b%");
const neutralOrNull = (value: string | null) => (value === null ? null : neutral(value));
const neutralUrl = (value: string) => value.replace(PLACEHOLDER, "%25%25$1%25%25");

function neutralInput(input: NewsletterInput): NewsletterInput {
  return {
    ...input,
    folder: {
      ...input.folder,
      name: neutral(input.folder.name),
      personalSignoff: neutralOrNull(input.folder.personalSignoff),
    },
    sender: {
      ...input.sender,
      firstName: neutralOrNull(input.sender.firstName),
      lastName: neutralOrNull(input.sender.lastName),
      email: neutral(input.sender.email),
    },
    items: input.items.map((item) => ({
      ...item,
      title: neutral(item.title),
      note: neutralOrNull(item.note),
      commentText: neutralOrNull(item.commentText),
      questionText: neutralOrNull(item.questionText),
      urls: item.urls.map(neutralUrl),
      fileNames: item.fileNames.map(neutral),
      previewTitle: neutralOrNull(item.previewTitle),
      previewDescription: neutralOrNull(item.previewDescription),
      previewSiteName: neutralOrNull(item.previewSiteName),
    })),
    issueNote: neutralOrNull(input.issueNote ?? null),
    heldBack: input.heldBack?.map((item) => ({
      ...item,
      title: neutral(item.title),
      editUrl: neutralUrl(item.editUrl),
    })),
  };
}

function inItemOrder(items: NewsletterItem[]) {
  return [...items].sort((a, b) => a.sortOrder - b.sortOrder || a.id - b.id);
}

/** A ready link preview's picture, shown inline. */
function previewAttachment(item: NewsletterItem): RenderedNewsletter["attachments"] {
  if (item.type !== "link" || item.previewStatus !== "ready" || !item.previewImageKey) return [];
  if (!item.urls[0]) return [];
  return [
    {
      filename: "preview.jpg",
      storageKey: item.previewImageKey,
      contentType: "image/jpeg",
      cid: previewCid(item.id),
      size: item.previewImageSize,
    },
  ];
}

/** A ready video's poster frame, shown inline and linked to the web version; the clip is never attached. */
function posterAttachment(item: NewsletterItem): RenderedNewsletter["attachments"] {
  const poster = item.thumbnailPaths[0];
  if (!poster) return [];
  return [
    {
      filename: "poster.jpg",
      storageKey: poster,
      contentType: "image/jpeg",
      cid: posterCid(item.id),
      // Not measured: a poster is a few kilobytes (as photos' thumbnails, it is not in file_sizes).
      size: 0,
    },
  ];
}

function attachmentsOf(items: NewsletterItem[]): RenderedNewsletter["attachments"] {
  return items.flatMap((item) => {
    if (item.type === "link") return previewAttachment(item);
    if (item.type === "video") return posterAttachment(item);
    if (item.type !== "photo" && item.type !== "file") return [];
    return item.filePaths.flatMap((storageKey, index) => {
      if (!storageKey) return [];
      const isPhoto = item.type === "photo";
      return [
        {
          filename: item.fileNames[index] || (isPhoto ? "photo.jpg" : "file"),
          storageKey,
          contentType:
            item.mimeTypes[index] || (isPhoto ? "image/jpeg" : "application/octet-stream"),
          ...(isPhoto ? { cid: photoCid(item.id, index) } : {}),
          size: item.fileSizes[index] ?? 0,
        },
      ];
    });
  });
}

/** The header image's bytes, when the sender's branding has one (`input.branding.headerImage`). */
export type HeaderImageBytes = { content: Buffer; contentType: string };

export function renderNewsletter(
  input: NewsletterInput,
  headerImageBytes: HeaderImageBytes | null = null,
): RenderedNewsletter {
  if (input.branding?.headerImage && !headerImageBytes) {
    throw new Error("The branding has a header image but its bytes were not given");
  }
  const ordered = { ...input, items: inItemOrder(input.items) };
  const subject = newsletterSubject(ordered);
  const safe = neutralInput(ordered);
  const title = neutral(subject);
  const html = renderEmailHtml(createElement(Newsletter, { input: safe, title }));
  // A second tree for the plain text: whole addresses, photos named.
  const text = renderEmailText(createElement(Newsletter, { input: safe, title, variant: "text" }));
  const attachments = attachmentsOf(ordered.items);
  const htmlBytes = Buffer.byteLength(html);
  return {
    subject,
    html,
    text,
    attachments,
    headerImage: input.branding?.headerImage ? headerImageBytes : null,
    textEncoding: transferEncodingOf(html),
    htmlBytes,
    totalBytes:
      htmlBytes +
      Buffer.byteLength(text) +
      (input.branding?.headerImage ? (headerImageBytes?.content.length ?? 0) : 0) +
      attachments.reduce((sum, attachment) => sum + attachment.size, 0),
  };
}

/**
 * nodemailer's choice for a text part (MimeNode's _getTextEncoding, private):
 * quoted-printable when Latin letters outnumber the other characters, which
 * keeps mostly-ASCII text readable and small; base64 otherwise.
 */
function transferEncodingOf(body: string) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the rule counts control characters as not Latin
  const other = body.match(/[\x00-\x08\x0B\x0C\x0E-\x1F\u0080-\uFFFF]/g)?.length ?? 0;
  const latin = body.match(/[a-z]/gi)?.length ?? 0;
  return other < latin ? "quoted-printable" : "base64";
}

function escapeHtml(value: string) {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** One recipient's own links; the open image and click base only for a tracked send. */
export type RecipientLinks = {
  email: string;
  unsubscribeUrl: string;
  /** Absent in the sender's preview and tests: the link then points nowhere. */
  webVersionUrl?: string;
  /** "All issues of …": the recipient's archive (the sender's copy: their Sent page). */
  archiveUrl?: string;
  openPixelUrl?: string;
  clickUrlBase?: string;
  /** The recipient's answer page of one item; absent: the links point nowhere. */
  answerUrlFor?: (itemId: number) => string;
};

/**
 * One recipient's bodies: their address and links in place of the
 * placeholders, filled in one pass so nothing filled in is read again as one.
 */
export function personalize(
  rendered: Pick<RenderedNewsletter, "html" | "text">,
  recipient: RecipientLinks,
): { html: string; text: string } {
  const filling = (name: string) => {
    switch (name) {
      case "RECIPIENT_EMAIL":
        return recipient.email;
      case "UNSUBSCRIBE_URL":
        return recipient.unsubscribeUrl;
      case "WEB_VERSION_URL":
        return recipient.webVersionUrl ?? "";
      case "ARCHIVE_URL":
        return recipient.archiveUrl ?? "";
      case "OPEN_PIXEL_URL":
        return recipient.openPixelUrl ?? "";
      case "CLICK_URL":
        return recipient.clickUrlBase ?? "";
      default:
        // ANSWER_URL:<itemId>, the only placeholder with an argument.
        return recipient.answerUrlFor?.(Number(name.slice(name.indexOf(":") + 1))) ?? "";
    }
  };
  return {
    html: rendered.html.replace(PLACEHOLDER, (_, name: string) => escapeHtml(filling(name))),
    text: rendered.text.replace(PLACEHOLDER, (_, name: string) => filling(name)),
  };
}

/**
 * A stored file as a stream that opens only when nodemailer starts reading it,
 * so building the attachment list holds no file open, and a message that is
 * never sent leaves nothing behind. A missing file fails the send.
 */
async function storedBytes(storage: FileStorage, key: string): Promise<Buffer> {
  const source = await storage.get(key);
  if (!source) throw new Error(`Stored file ${key} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * nodemailer attachments for a send, read from storage once and shared by
 * every recipient's message (a folder holds at most 20 MB, so they fit in
 * memory; reading them per message cost more than the sending).
 */
export async function attachmentsFor(
  rendered: RenderedNewsletter,
  storage: FileStorage,
): Promise<Attachment[]> {
  const header: Attachment[] = rendered.headerImage
    ? [
        {
          filename: rendered.headerImage.contentType === "image/png" ? "header.png" : "header.jpg",
          contentType: rendered.headerImage.contentType,
          content: rendered.headerImage.content,
          cid: HEADER_IMAGE_CID,
          contentDisposition: "inline",
        },
      ]
    : [];
  const stored = await Promise.all(
    rendered.attachments.map(async (attachment) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: await storedBytes(storage, attachment.storageKey),
      ...(attachment.cid
        ? { cid: attachment.cid, contentDisposition: "inline" as const }
        : { contentDisposition: "attachment" as const }),
    })),
  );
  return [...header, ...stored];
}
