import { LIMITS } from "~/modules/billing/limits";
import {
  mailgunSignatureValid,
  sendgridSignatureValid,
} from "~/modules/deliverability/relay-webhooks.server";
import { env } from "~/platform/env.server";
import { readBodyBytes } from "~/platform/request-body.server";
import { sameSecret } from "~/platform/same-secret.server";

/**
 * Mail posted by a provider's inbound webhook to /webhooks/save-by-email, or
 * /webhooks/save-by-email/mime for Mailgun, which posts the whole message only
 * to a URL ending in `mime` (docs/decisions/0169-save-by-email-webhook-urls-and-signatures.md).
 * The whole message is needed, as it was sent, for its DKIM signature and its
 * attachments: Postmark's JSON with RawEmail, SendGrid's Inbound Parse with
 * "POST the raw, full MIME message", Mailgun's `body-mime`, or the message itself.
 */
export type WebhookMail = { raw: Buffer; recipients: string[] };

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
function mailgunSignatureHolds(form: FormData, mailgunUrl: boolean) {
  const key = env.MAILGUN_WEBHOOK_SIGNING_KEY;
  const [timestamp, token, signature] = ["timestamp", "token", "signature"].map((name) =>
    form.get(name),
  );
  if (!key) return true;
  if (typeof signature !== "string") return !mailgunUrl;
  return mailgunSignatureValid(key, {
    timestamp: typeof timestamp === "string" ? timestamp : "",
    token: typeof token === "string" ? token : "",
    signature,
  });
}

function text(value: unknown) {
  return typeof value === "string" && value ? value : null;
}

/** The posted message, or why it cannot be read; `raw` is empty when no whole message was posted. */
export async function readWebhookMail(
  request: Request,
): Promise<WebhookMail | "too-large" | "bad-signature"> {
  const bytes = await readBodyBytes(request, WEBHOOK_MAIL_MAX_BODY_BYTES);
  if (bytes === null) return "too-large";
  const inboundParseKey = env.SENDGRID_INBOUND_PARSE_PUBLIC_KEY;
  if (inboundParseKey && !sendgridSignatureValid(inboundParseKey, request, bytes)) {
    return "bad-signature";
  }
  const contentType = request.headers.get("content-type") ?? "";
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  if (mediaType === "application/json") {
    let fields: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(bytes.toString("utf8"));
      if (parsed && typeof parsed === "object") fields = parsed as Record<string, unknown>;
    } catch {
      // Nothing readable: an empty message, dropped as malformed.
    }
    const recipient = text(fields.OriginalRecipient);
    return {
      raw: Buffer.from(text(fields.RawEmail) ?? ""),
      recipients: recipient ? [recipient] : [],
    };
  }
  if (mediaType === "multipart/form-data" || mediaType === "application/x-www-form-urlencoded") {
    // The bytes as posted: a text round trip would re-encode a part that is not UTF-8.
    const form = await new Response(new Uint8Array(bytes), {
      headers: { "Content-Type": contentType },
    })
      .formData()
      .catch(() => new FormData());
    const mailgunUrl = new URL(request.url).pathname.endsWith("/mime");
    if (!mailgunSignatureHolds(form, mailgunUrl)) return "bad-signature";
    let envelopeTo: string[] = [];
    try {
      const envelope = JSON.parse(text(form.get("envelope")) ?? "{}") as { to?: unknown };
      if (Array.isArray(envelope.to))
        envelopeTo = envelope.to.filter((to) => typeof to === "string");
    } catch {
      // SendGrid's envelope is optional; the message's own headers are tried too.
    }
    const recipient = text(form.get("recipient"));
    return {
      raw: Buffer.from(text(form.get("email")) ?? text(form.get("body-mime")) ?? ""),
      recipients: [...envelopeTo, ...(recipient ? recipient.split(",") : [])].map((to) =>
        to.trim(),
      ),
    };
  }
  return { raw: bytes, recipients: [] };
}
