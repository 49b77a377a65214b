import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Transform } from "node:stream";
import type { AddressObject } from "mailparser";
import nodemailer, { type Transporter } from "nodemailer";
import addressparser from "nodemailer/lib/addressparser/index.js";
import type Mail from "nodemailer/lib/mailer";
import type { Attachment } from "nodemailer/lib/mailer";
import { parseConnectionUrl } from "nodemailer/lib/shared/index.js";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import type StreamTransport from "nodemailer/lib/stream-transport";
import { env } from "~/platform/env.server";
import { createRelayPace, isThrottling, type RelayPace } from "~/platform/relay-pace.server";

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
  headers?: Mail.Headers;
  attachments?: Attachment[];
  messageId?: string;
  /** The envelope sender (MAIL FROM, Return-Path) when it is not the From address: where bounces go. */
  returnPath?: string;
  /** Shown before our address ("Ada Lovelace via Thoughtfully"); the address stays MAIL_FROM's. */
  fromName?: string;
  /**
   * The message's last byte (SMTP's final ".", after which the server may
   * accept it; in the outbox, the file's appearance) waits for this. Holds
   * back an accepted message until the one before it is recorded:
   * app/modules/sending/acceptance-turn.server.ts.
   */
  waitBeforeEnd?: () => Promise<void>;
  /** The bodies' transfer encoding when the caller knows it; otherwise nodemailer scans them. */
  textEncoding?: "quoted-printable" | "base64";
};

/** What the held-back stream gathers before passing it on: a few socket writes per message. */
const GATHER_BYTES = 64 * 1024;

/**
 * A pass-through whose end waits for `ready`; a rejection fails the stream, so
 * no end is sent. It gathers nodemailer's small chunks (a line or so each)
 * into pieces of up to 64 KB: the socket then takes a message in a few writes
 * instead of hundreds, which was most of a send's own cost in
 * `npm run bench:send` (docs/decisions/0224-the-send-engines-own-cost.md).
 */
function endingAfter(ready: () => Promise<void>) {
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  const passOn = (stream: Transform) => {
    if (gatheredBytes === 0) return;
    stream.push(gathered.length === 1 ? gathered[0] : Buffer.concat(gathered, gatheredBytes));
    gathered = [];
    gatheredBytes = 0;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      gathered.push(chunk);
      gatheredBytes += chunk.length;
      if (gatheredBytes >= GATHER_BYTES) passOn(this);
      callback();
    },
    flush(callback) {
      // Every byte goes out at once: only the end (SMTP's final ".") waits for the turn.
      passOn(this);
      ready().then(() => callback(), callback);
    },
  });
}

function fromHeader(fromName: string | undefined): Mail.Address | string {
  if (!fromName) return env.MAIL_FROM;
  const [parsed] = addressparser(env.MAIL_FROM, { flatten: true });
  return parsed?.address ? { name: fromName, address: parsed.address } : env.MAIL_FROM;
}

let smtpTransport: Transporter | undefined;
let pace: RelayPace | undefined;
let outboxTransport: Transporter<StreamTransport.SentMessageInfo> | undefined;

/**
 * The production SMTP transport for a connection URL: pooled unless the URL
 * says otherwise (`pool=false`), with SMTP_MAX_CONNECTIONS connections, one
 * for each acceptance window of the send engine
 * (docs/decisions/0247-one-acceptance-window-per-connection.md). nodemailer
 * (since 10.1) turns Nagle's algorithm off on every SMTP socket itself, so a
 * message's closing dot never waits for the server's delayed ACK
 * (docs/decisions/0186-libraries-at-their-current-majors-on-node-20.md).
 * Benchmarks build their plain-nodemailer baseline with this too.
 */
export function createSmtpTransport(smtpUrl: string): Transporter {
  const options: SMTPPool.Options = parseConnectionUrl(smtpUrl) as SMTPPool.Options;
  options.pool ??= true;
  options.maxConnections = env.SMTP_MAX_CONNECTIONS;
  const transport = nodemailer.createTransport(options);
  // The last transform of the message stream before DKIM (which nodemailer adds after
  // plugins): a signed message is then sent whole once its turn comes, still correct.
  transport.use("stream", (mail, done) => {
    const { waitBeforeEnd } = mail.data as { waitBeforeEnd?: OutgoingEmail["waitBeforeEnd"] };
    if (waitBeforeEnd) mail.message.transform(endingAfter(waitBeforeEnd));
    done();
  });
  return transport;
}

function getSmtpTransport(smtpUrl: string) {
  smtpTransport ??= createSmtpTransport(smtpUrl);
  return smtpTransport;
}

/** This thread's pace of messages to the relay: every message it sends keeps it. */
function relayPace() {
  pace ??= createRelayPace({ perSecond: env.SMTP_MAX_MESSAGES_PER_SECOND });
  return pace;
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
 * DKIM_PRIVATE_KEY holds the PEM itself, or the path of a file that does ("\\n" escapes allowed).
 * nodemailer's own list of signed header fields has List-Unsubscribe-Post since 10.6.1, as
 * RFC 8058 wants for one-click unsubscribe to count (tests/integration/dkim.test.ts).
 */
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
  };
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
    waitBeforeEnd: email.waitBeforeEnd,
    textEncoding: email.textEncoding,
    // nodemailer takes the envelope whole: its recipients are the message's own.
    envelope: email.returnPath
      ? { from: email.returnPath, to: [email.to], ...(email.cc ? { cc: [email.cc] } : {}) }
      : undefined,
  };

  if (env.SMTP_URL) {
    // A server that closes an idle pooled connection answers the next command with 421.
    // nodemailer's pool (since 10) then sends the message again on a new connection, at
    // once, when not a byte of it had gone out, so it cannot arrive twice. Any other
    // failure, a 421 on a new connection included, is left to the sending ledger's
    // delayed retries.
    // The relay's limits are waited for before the message starts, never in its window.
    await relayPace().ready();
    try {
      const info = await getSmtpTransport(env.SMTP_URL).sendMail(message);
      relayPace().taken();
      return { messageId: info.messageId };
    } catch (error) {
      if (isThrottling(error)) {
        relayPace().throttled(String((error as { response?: string }).response).slice(0, 300));
      }
      throw error;
    }
  }

  // Unix line breaks: the transport's `newline` applies to every message (nodemailer 8.0.11 on).
  const info = await getOutboxTransport().sendMail(message);
  const raw = info.message;
  if (!Buffer.isBuffer(raw)) throw new Error("The outbox transport must buffer messages");
  const dir = env.OUTBOX_DIR;
  await fs.promises.mkdir(dir, { recursive: true });
  await email.waitBeforeEnd?.();
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
  pace = undefined;
  transport?.close();
}

// ---------------------------------------------------------------------------
// Reading the outbox (for /dev/outbox and the tests), with mailparser.

export type OutboxEntry = { id: string; subject: string; to: string; date: Date };

export type OutboxMessage = OutboxEntry & {
  from: string;
  cc: string;
  /** The HTML body (inline images still as cid: links), or null when the message has none. */
  html: string | null;
  /** The plain-text body, or null when the message has none. */
  text: string | null;
  /** The whole .eml file. */
  raw: string;
};

const OUTBOX_ID = /^[\w.-]+\.eml$/;
/** The header block of our messages is far smaller; attachments are not read for the list. */
const HEADER_READ_BYTES = 64 * 1024;
const PARSE_OPTIONS = { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true } as const;
/** Only the outbox pages read mail back: the parser is loaded when they do, not at every start. */
const readMail = () => import("mailparser");

function outboxPath(id: string) {
  if (!OUTBOX_ID.test(id) || id.includes("..")) return null;
  const dir = path.resolve(env.OUTBOX_DIR);
  const file = path.join(dir, id);
  return path.dirname(file) === dir ? file : null;
}

/** "Zoë Ångström <zoe@example.com>, bob@example.com", names unquoted, for reading. */
function addressText(address: AddressObject | AddressObject[] | undefined) {
  return (Array.isArray(address) ? address : address ? [address] : [])
    .flatMap((entry) => entry.value)
    .map(({ name, address }) => (name ? `${name} <${address ?? ""}>` : (address ?? "")))
    .join(", ");
}

export async function listOutbox(): Promise<OutboxEntry[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(env.OUTBOX_DIR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const entries: OutboxEntry[] = [];
  for (const id of names) {
    const file = outboxPath(id);
    if (!file) continue;
    let head: Buffer;
    let mtime: Date;
    try {
      head = await readHeaderBlock(file);
      mtime = (await fs.promises.stat(file)).mtime;
    } catch {
      continue; // removed meanwhile
    }
    const parsed = await (await readMail()).simpleParser(head, PARSE_OPTIONS);
    entries.push({
      id,
      subject: parsed.subject ?? "",
      to: addressText(parsed.to),
      date: parsed.date ?? mtime,
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
  const parsed = await (await readMail()).simpleParser(bytes, PARSE_OPTIONS);
  return {
    id,
    subject: parsed.subject ?? "",
    to: addressText(parsed.to),
    from: addressText(parsed.from),
    cc: addressText(parsed.cc),
    date: parsed.date ?? mtime,
    html: parsed.html || null,
    text: parsed.text ?? null,
    raw: bytes.toString("utf8"),
  };
}

/** The message's header block: read from the start up to the first blank line. */
async function readHeaderBlock(file: string) {
  const handle = await fs.promises.open(file, "r");
  try {
    const buffer = Buffer.alloc(HEADER_READ_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const start = buffer.subarray(0, bytesRead);
    const end = start.indexOf("\n\n");
    return end === -1 ? start : start.subarray(0, end + 2);
  } finally {
    await handle.close();
  }
}
