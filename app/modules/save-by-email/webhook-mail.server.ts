import { Readable } from "node:stream";
import type { Token as JsonToken } from "stream-json/parser.js";
import {
  mailgunSignatureValid,
  sendgridSignatureValidOver,
} from "~/modules/deliverability/relay-webhooks.server";
import { LIMITS } from "~/modules/plans/limits";
import { env } from "~/platform/env.server";
import {
  BUDGET_WAIT_MS,
  isMemoryBudgetSpent,
  memoryBudget,
  tryLaterResponse,
} from "~/platform/memory-budget.server";
import { parseMultipartForm } from "~/platform/multipart.server";
import { isBodyTooLarge, WHOLE_BODY_HOLD_FACTOR } from "~/platform/route-body-limit";
import { sameSecret } from "~/platform/same-secret.server";
import {
  type SpooledFile,
  SpoolFullError,
  SpoolTooLargeError,
  spoolToFile,
} from "~/platform/spool.server";

/**
 * Mail posted by a provider's inbound webhook to /webhooks/save-by-email, or
 * /webhooks/save-by-email/mime for Mailgun, which posts the whole message only
 * to a URL ending in `mime` (docs/decisions/0169-save-by-email-webhook-urls-and-signatures.md).
 * The whole message is needed, as it was sent, for its DKIM signature and its
 * attachments: Postmark's JSON with RawEmail, SendGrid's Inbound Parse with
 * "POST the raw, full MIME message", Mailgun's `body-mime`, or the message itself.
 */
export type WebhookMail = { raw: SpooledFile | Buffer; recipients: string[] };

/** The body a message of the largest size takes in any of those forms, with room for the form's fields. */
export const WEBHOOK_MAIL_MAX_BODY_BYTES = LIMITS.saveByEmail.maxMessageBytes + 1024 * 1024;

/**
 * The provider proves itself with INBOUND_EMAIL_WEBHOOK_TOKEN as the
 * basic-auth password (each of them takes credentials in the webhook's URL);
 * Mailgun and SendGrid also sign what they post, which is checked when their
 * key is set.
 */
export function webhookAuthorized(request: Request) {
  const expected = env.INBOUND_EMAIL_WEBHOOK_TOKEN;
  const header = request.headers.get("authorization") ?? "";
  if (!expected || !header.toLowerCase().startsWith("basic ")) return false;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  return sameSecret(decoded.slice(decoded.indexOf(":") + 1), expected);
}

/**
 * With Mailgun's key set, a post to Mailgun's own URL (the one ending in
 * `mime`) must be signed; elsewhere a form without Mailgun's fields is
 * another provider's (SendGrid posts forms too) and the token is its proof.
 */
function mailgunSignatureHolds(fields: Map<string, string>, mailgunUrl: boolean) {
  const key = env.MAILGUN_WEBHOOK_SIGNING_KEY;
  if (!key) return true;
  const signature = fields.get("signature");
  if (signature === undefined) return !mailgunUrl;
  return mailgunSignatureValid(key, {
    timestamp: fields.get("timestamp") ?? "",
    token: fields.get("token") ?? "",
    signature,
  });
}

/** A posted field the app reads (an address, a signature's part): a few hundred bytes in practice. */
const FIELD_MAX_BYTES = 8 * 1024;

/** The form fields that carry the whole message: SendGrid's `email`, Mailgun's `body-mime`. */
const MESSAGE_FIELDS = new Set(["email", "body-mime"]);
const READ_FIELDS = new Set(["recipient", "envelope", "timestamp", "token", "signature"]);

/** A provider's form has a few dozen fields; a limit keeps a crafted one from taking more. */
const FORM_MAX_PARTS = 200;

/** A message the post did not hold (unreadable, or no message field): dropped as malformed. */
const NO_MESSAGE: Buffer = Buffer.alloc(0);

/**
 * The posted message, or why it cannot be read; `raw` is empty when no whole
 * message was posted. The body is written to the spool as it arrives and read
 * from there: the message is never held in memory, whichever way it came
 * (docs/memory-budget.md). The caller removes `raw` when done (removeWebhookMail).
 */
export async function readWebhookMail(
  request: Request,
): Promise<WebhookMail | "too-large" | "bad-signature"> {
  const body = await spoolBody(request);
  if (body === "too-large") return "too-large";
  let mail: WebhookMail | "bad-signature" | null = null;
  try {
    const inboundParseKey = env.SENDGRID_INBOUND_PARSE_PUBLIC_KEY;
    if (
      inboundParseKey &&
      !(await sendgridSignatureValidOver(inboundParseKey, request, body.open()))
    ) {
      return "bad-signature";
    }
    const contentType = request.headers.get("content-type") ?? "";
    const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
    if (mediaType === "application/json") mail = await readPostmarkJson(body);
    else if (mediaType === "multipart/form-data") {
      mail = await readForm(body, contentType, new URL(request.url).pathname.endsWith("/mime"));
    } else if (mediaType === "application/x-www-form-urlencoded") {
      mail = await readUrlencodedForm(body, new URL(request.url).pathname.endsWith("/mime"));
    } else mail = { raw: body, recipients: [] };
    return mail;
  } finally {
    if (mail === null || mail === "bad-signature" || mail.raw !== body) await body.remove();
  }
}

/** Removes what readWebhookMail spooled; safe to call twice. */
export async function removeWebhookMail(mail: WebhookMail) {
  if (!Buffer.isBuffer(mail.raw)) await mail.raw.remove();
}

/** The request's body, spooled as it arrives; "too-large" past the webhook's limit. */
async function spoolBody(request: Request): Promise<SpooledFile | "too-large"> {
  try {
    const source = request.body
      ? Readable.fromWeb(request.body as import("node:stream/web").ReadableStream<Uint8Array>)
      : Readable.from([]);
    return await spoolToFile(source, {
      maxBytes: WEBHOOK_MAIL_MAX_BODY_BYTES,
    });
  } catch (error) {
    if (error instanceof SpoolTooLargeError || isBodyTooLarge(error)) return "too-large";
    // No room on the spool's disk, or in memory for the stream's window: the provider posts it later.
    if (error instanceof SpoolFullError || isMemoryBudgetSpent(error)) throw tryLaterResponse();
    throw error;
  }
}

/**
 * Postmark's JSON: RawEmail's characters go to the spool as the parser
 * streams them (stream-json, strings never packed whole), OriginalRecipient
 * is kept; JSON that cannot be read is no message, as before.
 */
const RAW_WRITE_CHARS = 64 * 1024;

async function readPostmarkJson(body: SpooledFile): Promise<WebhookMail> {
  const { parser } = await import("stream-json/parser.js");
  const source = body.open();
  const tokens = source.pipe(
    parser.asStream({
      packKeys: true,
      packStrings: false,
      packNumbers: true,
      streamNumbers: false,
    }),
  );
  source.once("error", (error) => tokens.destroy(error));
  let recipient = "";
  async function* rawEmail() {
    let depth = 0;
    let key: string | null = null;
    let into: "raw" | "recipient" | null = null;
    let rawRead = false;
    // The parser gives a piece of string per run of plain characters and per
    // escape: three a line for a message's `\r\n`s. Written one by one to the
    // spool, they cost more than the parse and held the event loop for seconds
    // under a flood (docs/memory-budget.md); gathered, they go as 64 KiB writes.
    let pieces: string[] = [];
    let piecesLength = 0;
    const gathered = () => {
      const chunk = Buffer.from(pieces.join(""));
      pieces = [];
      piecesLength = 0;
      return chunk;
    };
    for await (const token of tokens as AsyncIterable<JsonToken>) {
      if (token.name === "startObject" || token.name === "startArray") depth++;
      else if (token.name === "endObject" || token.name === "endArray") depth--;
      else if (token.name === "keyValue" && depth === 1) key = token.value;
      else if (token.name === "startString" && depth === 1) {
        into =
          key === "RawEmail" && !rawRead ? "raw" : key === "OriginalRecipient" ? "recipient" : null;
      } else if (token.name === "stringChunk" && into === "raw") {
        pieces.push(token.value);
        piecesLength += token.value.length;
        if (piecesLength >= RAW_WRITE_CHARS) yield gathered();
      } else if (token.name === "stringChunk" && into === "recipient") {
        if (recipient.length + token.value.length > FIELD_MAX_BYTES) into = null;
        else recipient += token.value;
      } else if (token.name === "endString") {
        if (into === "raw") {
          rawRead = true;
          if (piecesLength > 0) yield gathered();
        }
        into = null;
      }
    }
  }
  try {
    const raw = await spoolToFile(rawEmail(), { maxBytes: WEBHOOK_MAIL_MAX_BODY_BYTES });
    return { raw, recipients: recipient ? [recipient] : [] };
  } catch (error) {
    if (error instanceof SpoolFullError) throw tryLaterResponse();
    return { raw: NO_MESSAGE, recipients: [] };
  } finally {
    source.destroy();
  }
}

/**
 * SendGrid's and Mailgun's multipart forms, parsed from the spool: the
 * message field to a spooled file of its own, the few fields read here kept
 * (small), every other field read past and dropped.
 */
async function readForm(
  body: SpooledFile,
  contentType: string,
  mailgunUrl: boolean,
): Promise<WebhookMail | "bad-signature"> {
  const fields = new Map<string, string>();
  let raw: SpooledFile | null = null;
  const posted = new Request("http://spool.invalid/", {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: Readable.toWeb(body.open()) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
  try {
    await parseMultipartForm(
      posted,
      async (part) => {
        if (MESSAGE_FIELDS.has(part.name) && !raw) {
          raw = await spoolToFile(part.data, { maxBytes: WEBHOOK_MAIL_MAX_BODY_BYTES });
        } else if (READ_FIELDS.has(part.name) && !fields.has(part.name)) {
          fields.set(part.name, await textOf(part.data));
        } else {
          for await (const _ of part.data) {
            // Read past, not kept: the app has no use for it.
          }
        }
        return undefined;
      },
      { maxParts: FORM_MAX_PARTS, tooManyPartsMessage: "Too many fields" },
    );
  } catch (error) {
    // Nothing readable: no message, as before; a signed Mailgun URL still needs its signature.
    if (raw) await (raw as SpooledFile).remove();
    if (error instanceof SpoolFullError) throw tryLaterResponse();
    fields.clear();
    raw = null;
  }
  return formMail(fields, raw, mailgunUrl);
}

/** A form posted urlencoded: held in memory, its bytes reserved three times over from the budget first. */
async function readUrlencodedForm(
  body: SpooledFile,
  mailgunUrl: boolean,
): Promise<WebhookMail | "bad-signature"> {
  const reservation = await memoryBudget.reserve(WHOLE_BODY_HOLD_FACTOR * body.size, {
    waitMs: BUDGET_WAIT_MS,
  });
  if (!reservation) throw tryLaterResponse();
  try {
    const form = new URLSearchParams(await textOf(body.open(), WEBHOOK_MAIL_MAX_BODY_BYTES));
    const fields = new Map(
      [...READ_FIELDS].flatMap((name) => {
        const value = form.get(name);
        return value ? [[name, value.slice(0, FIELD_MAX_BYTES)] as const] : [];
      }),
    );
    const message = form.get("email") || form.get("body-mime");
    const raw = message
      ? await spoolToFile(Readable.from([Buffer.from(message)]), {
          maxBytes: WEBHOOK_MAIL_MAX_BODY_BYTES,
        })
      : null;
    return formMail(fields, raw, mailgunUrl);
  } finally {
    reservation.release();
  }
}

/** A form's message and recipients, once Mailgun's signature holds. */
async function formMail(
  fields: Map<string, string>,
  raw: SpooledFile | null,
  mailgunUrl: boolean,
): Promise<WebhookMail | "bad-signature"> {
  if (!mailgunSignatureHolds(fields, mailgunUrl)) {
    await raw?.remove();
    return "bad-signature";
  }
  let envelopeTo: string[] = [];
  try {
    const envelope = JSON.parse(fields.get("envelope") || "{}") as { to?: unknown };
    if (Array.isArray(envelope.to)) envelopeTo = envelope.to.filter((to) => typeof to === "string");
  } catch {
    // SendGrid's envelope is optional; the message's own headers are tried too.
  }
  const recipient = fields.get("recipient");
  return {
    raw: raw ?? NO_MESSAGE,
    recipients: [...envelopeTo, ...(recipient ? recipient.split(",") : [])].map((to) => to.trim()),
  };
}

/** A field's text, at most `maxBytes` (the rest is read past). */
async function textOf(data: AsyncIterable<Uint8Array>, maxBytes = FIELD_MAX_BYTES) {
  const chunks: Buffer[] = [];
  let held = 0;
  for await (const chunk of data) {
    if (held >= maxBytes) continue;
    const part = Buffer.from(chunk).subarray(0, maxBytes - held);
    chunks.push(part);
    held += part.byteLength;
  }
  return Buffer.concat(chunks).toString("utf8");
}
