import { eq } from "drizzle-orm";
import addressparser from "nodemailer/lib/addressparser/index.js";
import { folders } from "#db/schema";
import { recipientsOf } from "~/modules/folders/folders.server";
import { LIMITS } from "~/modules/plans/limits";
import { db } from "~/platform/db.server";
import { readBodyText } from "~/platform/request-body.server";
import { UnknownFolderError, unsubscribe } from "./opt-outs.server";
import { isValidUnsubscribeToken, readUnsubscribeSubject } from "./recipient-links.server";

/**
 * Mail that arrives at MAIL_FROM's address, handed over by whatever receives
 * that mailbox (an inbound-mail webhook of the provider, a mail worker, or an
 * operator with curl). Only the List-Unsubscribe mailto (see
 * unsubscribeMailto) is acted on; everything else is ignored. The token in the
 * subject is the proof, as on the https link, so the hook needs no secret.
 */
export type InboundEmail = {
  subject: string;
  from: string | null;
  /** The whole message when it was posted as one (raw, or in a raw-message form field), for bounce reports. */
  raw: string | null;
};

export type InboundOutcome =
  | { outcome: "unsubscribed"; folderId: number; email: string }
  | { outcome: "ignored"; reason: string };

function text(value: unknown) {
  return typeof value === "string" ? value : null;
}

/**
 * The subject and sender of a posted message, in the forms providers post
 * them: the raw message (message/rfc822 and anything not listed), form fields
 * `subject` and `from` (SendGrid's Inbound Parse, Mailgun's routes), or JSON
 * `Subject` and `From` (Postmark), each with the raw message when it is there. Null when the body is over the limit.
 */
export async function readInboundEmail(request: Request): Promise<InboundEmail | null> {
  const body = await readBodyText(request, LIMITS.inboundEmailMaxBodyBytes);
  if (body === null) return null;
  const contentType = request.headers.get("content-type") ?? "";
  // Only the type is compared without case: a multipart boundary is case-sensitive.
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  if (mediaType === "application/json") {
    let fields: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed && typeof parsed === "object") fields = parsed as Record<string, unknown>;
    } catch {
      return { subject: "", from: null, raw: null };
    }
    return {
      subject: text(fields.Subject) ?? text(fields.subject) ?? "",
      from: text(fields.From) ?? text(fields.from),
      raw: text(fields.RawEmail),
    };
  }
  if (mediaType === "multipart/form-data" || mediaType === "application/x-www-form-urlencoded") {
    const form = await new Response(body, { headers: { "Content-Type": contentType } })
      .formData()
      .catch(() => new FormData());
    return {
      subject: text(form.get("subject")) ?? "",
      from: text(form.get("from")),
      // SendGrid's "POST the raw, full MIME message" and Mailgun's MIME route.
      raw: text(form.get("email")) ?? text(form.get("body-mime")),
    };
  }
  // Loaded on the first inbound message, not at every start (docs/decisions/0083-one-build.md).
  const { simpleParser } = await import("mailparser");
  const message = await simpleParser(body, { skipHtmlToText: true, skipTextToHtml: true });
  return {
    subject: message.subject ?? "",
    from: message.from?.value[0]?.address ?? null,
    raw: body,
  };
}

/** "Ada <ada@example.com>" or "ada@example.com" → "ada@example.com" (nodemailer's parser, as the mailer uses). */
function bareAddress(from: string) {
  return addressparser(from, { flatten: true })[0]?.address?.trim().toLowerCase() || null;
}

/**
 * Unsubscribes the recipient the subject's token was made for, from that
 * folder only (as the https link does by default). The message's From is
 * tried first, then every address the folder lists, so a reply from another
 * address of the same person (an alias, a forward) still works.
 */
export function applyInboundEmail({
  subject,
  from,
}: Pick<InboundEmail, "subject" | "from">): InboundOutcome {
  const request = readUnsubscribeSubject(subject);
  if (!request) return { outcome: "ignored", reason: "not an unsubscribe request" };
  const folder = db.select().from(folders).where(eq(folders.id, request.folderId)).get();
  if (!folder) return { outcome: "ignored", reason: "no such folder" };
  const sender = from ? bareAddress(from) : null;
  const candidates = [
    ...(sender ? [sender] : []),
    ...recipientsOf(folder).map((recipient) => recipient.email.trim().toLowerCase()),
  ];
  const email = candidates.find((address) =>
    isValidUnsubscribeToken(folder.id, address, request.token),
  );
  if (!email) return { outcome: "ignored", reason: "token does not match" };
  try {
    unsubscribe({ folderId: folder.id, email });
  } catch (error) {
    if (error instanceof UnknownFolderError)
      return { outcome: "ignored", reason: "no such folder" };
    throw error;
  }
  return { outcome: "unsubscribed", folderId: folder.id, email };
}
