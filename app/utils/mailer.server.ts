import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import addressparser from "nodemailer/lib/addressparser/index.js";
import type Mail from "nodemailer/lib/mailer";
import type { Attachment } from "nodemailer/lib/mailer";
import type StreamTransport from "nodemailer/lib/stream-transport";
import { env } from "~/utils/env.server";

/**
 * The one way the app sends e-mail. With SMTP_URL set, messages go through a
 * pooled SMTP connection; without it they are written, fully rendered, as
 * .eml files into OUTBOX_DIR (the embedded default: no outside service), where
 * /dev/outbox and any mail app can show them. env is read at call time.
 */
export type OutgoingEmail = {
  to: string;
  subject: string;
  html: string;
  text: string;
  replyTo?: string;
  cc?: string;
  headers?: Record<string, string>;
  attachments?: Attachment[];
  messageId?: string;
  /** Shown before our address ("Ada Lovelace via Thoughtfully"); the address stays MAIL_FROM's. */
  fromName?: string;
};

function fromHeader(fromName: string | undefined): Mail.Address | string {
  if (!fromName) return env.MAIL_FROM;
  const [parsed] = addressparser(env.MAIL_FROM, { flatten: true });
  return parsed?.address ? { name: fromName, address: parsed.address } : env.MAIL_FROM;
}

let smtpTransport: Transporter | undefined;
let outboxTransport: Transporter<StreamTransport.SentMessageInfo> | undefined;

function getSmtpTransport(smtpUrl: string) {
  if (!smtpTransport) {
    // Options in a connection URL replace an options object, so pooling is
    // asked for in the URL itself (unless the operator chose otherwise there).
    const url = /[?&]pool=/.test(smtpUrl)
      ? smtpUrl
      : `${smtpUrl}${smtpUrl.includes("?") ? "&" : "?"}pool=true`;
    smtpTransport = nodemailer.createTransport(url);
  }
  return smtpTransport;
}

function getOutboxTransport() {
  outboxTransport ??= nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: "unix",
  });
  return outboxTransport;
}

/**
 * Header fields DKIM signs: nodemailer's list plus List-Unsubscribe-Post,
 * which RFC 8058 requires to be signed for one-click unsubscribe to count.
 */
export const DKIM_SIGNED_HEADERS = [
  "From",
  "Sender",
  "Reply-To",
  "Subject",
  "Date",
  "Message-ID",
  "To",
  "Cc",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "In-Reply-To",
  "References",
  "List-Id",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
].join(":");

/** DKIM_PRIVATE_KEY holds the PEM itself, or the path of a file that does ("\\n" escapes allowed). */
function dkimOptions() {
  if (!env.DKIM_DOMAIN || !env.DKIM_SELECTOR || !env.DKIM_PRIVATE_KEY) return undefined;
  const value = env.DKIM_PRIVATE_KEY;
  const privateKey = value.includes("-----BEGIN")
    ? value.replace(/\\n/g, "\n")
    : fs.readFileSync(value, "utf8");
  return {
    domainName: env.DKIM_DOMAIN,
    keySelector: env.DKIM_SELECTOR,
    privateKey,
    headerFieldNames: DKIM_SIGNED_HEADERS,
  };
}

/**
 * A server that closes an idle pooled connection answers the next command with
 * 421 ("service closing"); when that command is MAIL FROM, nothing of the
 * message was accepted, so sending again at once (nodemailer drops the closed
 * connection and opens a new one) cannot deliver it twice. Any other failure
 * is left to the sending ledger's delayed retries.
 */
function closedBeforeTransaction(error: unknown) {
  const smtpError = error as { responseCode?: number; command?: string };
  return smtpError.responseCode === 421 && smtpError.command === "MAIL FROM";
}

export async function sendEmail(email: OutgoingEmail): Promise<{ messageId: string }> {
  const message = {
    from: fromHeader(email.fromName),
    to: email.to,
    cc: email.cc,
    replyTo: email.replyTo,
    subject: email.subject,
    html: email.html,
    text: email.text,
    headers: email.headers,
    attachments: email.attachments,
    messageId: email.messageId,
    dkim: dkimOptions(),
  };

  if (env.SMTP_URL) {
    const transport = getSmtpTransport(env.SMTP_URL);
    try {
      const info = await transport.sendMail(message);
      return { messageId: info.messageId };
    } catch (error) {
      if (!closedBeforeTransaction(error)) throw error;
      const info = await transport.sendMail(message);
      return { messageId: info.messageId };
    }
  }

  // nodemailer 7 applies `newline` per message; on the transport it only names it in the log.
  const outboxMessage: Mail.Options & { newline: "unix" } = { ...message, newline: "unix" };
  const info = await getOutboxTransport().sendMail(outboxMessage);
  const raw = info.message;
  if (!Buffer.isBuffer(raw)) throw new Error("The outbox transport must buffer messages");
  const dir = env.OUTBOX_DIR;
  await fs.promises.mkdir(dir, { recursive: true });
  const id = `${new Date().toISOString().replace(/:/g, "-")}-${crypto.randomBytes(4).toString("hex")}.eml`;
  const file = path.join(dir, id);
  // Written aside, then renamed: a reader never sees half a message.
  await fs.promises.writeFile(`${file}.tmp`, raw);
  await fs.promises.rename(`${file}.tmp`, file);
  return { messageId: info.messageId };
}

/** Closes pooled SMTP connections (tests, shutdown). The next send opens new ones. */
export async function closeMailer() {
  const transport = smtpTransport;
  smtpTransport = undefined;
  transport?.close();
}

// ---------------------------------------------------------------------------
// Reading the outbox. mailparser is a development dependency only, so the few
// MIME rules needed to show our own messages live here.

export type OutboxEntry = { id: string; subject: string; to: string; date: Date };

export type OutboxMessage = OutboxEntry & {
  from: string;
  cc: string;
  /** The decoded HTML body, or null when the message has none. */
  html: string | null;
  /** The decoded plain-text body, or null when the message has none. */
  text: string | null;
  /** The whole .eml file. */
  raw: string;
};

const OUTBOX_ID = /^[\w.-]+\.eml$/;
/** The header block of our messages is far smaller; attachments are not read for the list. */
const HEADER_READ_BYTES = 64 * 1024;

function outboxPath(id: string) {
  if (!OUTBOX_ID.test(id) || id.includes("..")) return null;
  const dir = path.resolve(env.OUTBOX_DIR);
  const file = path.join(dir, id);
  return path.dirname(file) === dir ? file : null;
}

export function listOutbox(): OutboxEntry[] {
  let names: string[];
  try {
    names = fs.readdirSync(env.OUTBOX_DIR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const entries: OutboxEntry[] = [];
  for (const id of names) {
    const file = outboxPath(id);
    if (!file) continue;
    let head: string;
    let mtime: Date;
    try {
      head = readStart(file);
      mtime = fs.statSync(file).mtime;
    } catch {
      continue; // removed meanwhile
    }
    const headers = parseHeaderBlock(splitHead(head).header);
    entries.push({
      id,
      subject: decodeHeader(headers.get("subject") ?? ""),
      to: decodeHeader(headers.get("to") ?? ""),
      date: parseDate(headers.get("date"), mtime),
    });
  }
  // Names start with an ISO time stamp, so name order is time order.
  return entries.sort((a, b) => b.date.getTime() - a.date.getTime() || (a.id < b.id ? 1 : -1));
}

export async function readOutboxMessage(id: string): Promise<OutboxMessage | null> {
  const file = outboxPath(id);
  if (!file) return null;
  let bytes: Buffer;
  let mtime: Date;
  try {
    bytes = await fs.promises.readFile(file);
    mtime = (await fs.promises.stat(file)).mtime;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  // One character per byte, so each part can be decoded in its own charset.
  const binary = bytes.toString("latin1");
  const root = parsePart(binary);
  const header = (name: string) => decodeHeader(root.headers.get(name) ?? "");
  const bodies = { html: null as string | null, text: null as string | null };
  collectBodies(root, bodies, 0);
  return {
    id,
    subject: header("subject"),
    to: header("to"),
    from: header("from"),
    cc: header("cc"),
    date: parseDate(root.headers.get("date"), mtime),
    html: bodies.html,
    text: bodies.text,
    raw: bytes.toString("utf8"),
  };
}

function readStart(file: string) {
  const fd = fs.openSync(file, "r");
  try {
    const buffer = Buffer.alloc(HEADER_READ_BYTES);
    const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, length).toString("latin1");
  } finally {
    fs.closeSync(fd);
  }
}

function parseDate(value: string | undefined, fallback: Date) {
  const date = value ? new Date(value) : fallback;
  return Number.isNaN(date.getTime()) ? fallback : date;
}

/** The header block (before the first blank line) and the body after it. */
function splitHead(source: string) {
  const match = /\r?\n\r?\n/.exec(source);
  if (!match) return { header: source, body: "" };
  return {
    header: source.slice(0, match.index),
    body: source.slice(match.index + match[0].length),
  };
}

/** Unfolded header values by lower-case name; the first of a repeated name wins. */
function parseHeaderBlock(block: string) {
  const headers = new Map<string, string>();
  const unfolded = block.replace(/\r?\n(?=[ \t])/g, "");
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** "text/html; charset=utf-8" as its type and parameters. */
function parseStructured(value: string) {
  const [first = "", ...rest] = value.match(/(?:[^;"]|"(?:[^"\\]|\\.)*")+/g) ?? [];
  const params = new Map<string, string>();
  for (const param of rest) {
    const eq = param.indexOf("=");
    if (eq <= 0) continue;
    let paramValue = param.slice(eq + 1).trim();
    if (paramValue.startsWith('"') && paramValue.endsWith('"')) {
      paramValue = paramValue.slice(1, -1).replace(/\\(.)/g, "$1");
    }
    params.set(param.slice(0, eq).trim().toLowerCase(), paramValue);
  }
  return { value: first.trim().toLowerCase(), params };
}

function decodeCharset(bytes: Buffer, charset: string | undefined) {
  try {
    return new TextDecoder(charset?.trim() || "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes); // unknown charset name
  }
}

function decodeQuotedPrintable(binary: string) {
  const bytes = binary
    .replace(/[ \t]+(?=\r?\n)/g, "")
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  return Buffer.from(bytes, "latin1");
}

type MimePart = { headers: Map<string, string>; body: string };

function parsePart(binary: string): MimePart {
  const { header, body } = splitHead(binary);
  return { headers: parseHeaderBlock(header), body };
}

/** The first inline text/html and text/plain bodies, depth first. */
function collectBodies(
  part: MimePart,
  found: { html: string | null; text: string | null },
  depth: number,
) {
  if (depth > 10) return;
  const type = parseStructured(part.headers.get("content-type") ?? "text/plain");
  if (type.value.startsWith("multipart/")) {
    const boundary = type.params.get("boundary");
    if (!boundary) return;
    for (const child of splitMultipart(part.body, boundary)) collectBodies(child, found, depth + 1);
    return;
  }
  const disposition = parseStructured(part.headers.get("content-disposition") ?? "inline");
  if (disposition.value === "attachment") return;
  const key = type.value === "text/html" ? "html" : type.value === "text/plain" ? "text" : null;
  if (!key || found[key] !== null) return;
  const encoding = (part.headers.get("content-transfer-encoding") ?? "7bit").trim().toLowerCase();
  const bytes =
    encoding === "base64"
      ? Buffer.from(part.body.replace(/[^A-Za-z0-9+/=]/g, ""), "base64")
      : encoding === "quoted-printable"
        ? decodeQuotedPrintable(part.body)
        : Buffer.from(part.body, "latin1");
  found[key] = decodeCharset(bytes, type.params.get("charset"));
}

function splitMultipart(body: string, boundary: string): MimePart[] {
  const parts: MimePart[] = [];
  const lines = body.split(/\r?\n/);
  let current: string[] | null = null;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === `--${boundary}` || trimmed === `--${boundary}--`) {
      if (current) parts.push(parsePart(current.join("\n")));
      if (trimmed === `--${boundary}--`) return parts;
      current = [];
    } else if (current) {
      current.push(line);
    }
  }
  if (current) parts.push(parsePart(current.join("\n")));
  return parts;
}

/**
 * RFC 2047 encoded-words ("=?UTF-8?Q?Zo=C3=AB?=") in a header value read one
 * character per byte (latin1), as text; plain stretches are UTF-8.
 */
function decodeHeader(value: string) {
  const joined = value.replace(/(\?=)\s+(?==\?)/g, "$1");
  const chunks: { charset: string; bytes: Buffer }[] = [];
  const plain = (text: string) => ({ charset: "utf-8", bytes: Buffer.from(text, "latin1") });
  let last = 0;
  for (const match of joined.matchAll(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g)) {
    const [word, charset = "utf-8", encoding = "B", data = ""] = match;
    if (match.index > last) chunks.push(plain(joined.slice(last, match.index)));
    chunks.push({
      charset: (charset.split("*")[0] ?? "utf-8").toLowerCase(),
      bytes:
        encoding.toUpperCase() === "B"
          ? Buffer.from(data, "base64")
          : decodeQuotedPrintable(data.replace(/_/g, " ")),
    });
    last = match.index + word.length;
  }
  if (last < joined.length) chunks.push(plain(joined.slice(last)));
  // Neighbours in one charset are decoded together: a character may span two words.
  let result = "";
  for (let i = 0; i < chunks.length; ) {
    const charset = chunks[i]?.charset;
    const group: Buffer[] = [];
    for (; i < chunks.length && chunks[i]?.charset === charset; i++) group.push(chunks[i]!.bytes);
    result += decodeCharset(Buffer.concat(group), charset);
  }
  return result;
}
