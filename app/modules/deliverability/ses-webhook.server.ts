import crypto from "node:crypto";
import { LIMITS } from "~/modules/plans/limits";
import { env } from "~/platform/env.server";
import { readBodyText } from "~/platform/request-body.server";
import { safeFetch } from "~/platform/safe-fetch.server";
import { z } from "~/platform/zod";
import { COPY_HEADER } from "./copy-token.server";
import type { DeliveryReportKind } from "./delivery-reports.server";
import { applyRelayReports, type RelayReport, refuseOverRateLimit } from "./relay-webhooks.server";

/**
 * Amazon SES's bounce and complaint notifications, delivered by SNS
 * (docs/decisions/0122-relay-webhooks.md). SNS signs each message with a
 * certificate it serves over https from sns.<region>.amazonaws.com; anyone can
 * create a topic, so only the configured SES_SNS_TOPIC_ARN is accepted. The
 * copy's token comes from the original headers SES includes when the
 * identity's notifications are set to include them.
 */
const snsMessage = z.object({
  Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
  MessageId: z.string(),
  TopicArn: z.string(),
  Message: z.string(),
  Timestamp: z.string(),
  SignatureVersion: z.enum(["1", "2"]),
  Signature: z.string(),
  SigningCertURL: z.string(),
  Subject: z.string().optional(),
  SubscribeURL: z.string().optional(),
  Token: z.string().optional(),
});
export type SnsMessage = z.infer<typeof snsMessage>;

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com$/;

/** An https address of SNS itself: where a signing certificate or a confirmation may be fetched. */
export function isSnsUrl(address: string) {
  try {
    const url = new URL(address);
    return url.protocol === "https:" && url.port === "" && SNS_HOST.test(url.hostname);
  } catch {
    return false;
  }
}

/** The text SNS signs: the named fields, in this order, each as "Name\nvalue\n". */
export function snsStringToSign(message: SnsMessage) {
  const fields =
    message.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return fields
    .filter((name) => message[name as keyof SnsMessage] !== undefined)
    .map((name) => `${name}\n${message[name as keyof SnsMessage]}\n`)
    .join("");
}

/** Whether the certificate (PEM) signed the message: SHA1withRSA for version 1, SHA256withRSA for 2. */
export function verifySnsSignature(message: SnsMessage, certificatePem: string) {
  try {
    return crypto.verify(
      message.SignatureVersion === "1" ? "sha1" : "sha256",
      Buffer.from(snsStringToSign(message)),
      crypto.createPublicKey(certificatePem),
      Buffer.from(message.Signature, "base64"),
    );
  } catch {
    return false;
  }
}

const certificates = new Map<string, string>();

async function signingCertificate(address: string) {
  const cached = certificates.get(address);
  if (cached) return cached;
  const { body } = await safeFetch(address, {
    maxBytes: 16 * 1024,
    timeoutMs: 5_000,
    maxRedirects: 0,
    accept: "application/x-x509-ca-cert, application/x-pem-file, */*",
  });
  const pem = body.toString("utf8");
  certificates.set(address, pem);
  return pem;
}

const sesNotification = z.object({
  notificationType: z.string().optional(),
  eventType: z.string().optional(),
  bounce: z
    .object({
      bounceType: z.string(),
      feedbackId: z.string(),
      timestamp: z.string().optional(),
      bouncedRecipients: z.array(z.object({ diagnosticCode: z.string().optional() })).optional(),
    })
    .optional(),
  complaint: z
    .object({
      feedbackId: z.string(),
      timestamp: z.string().optional(),
      complaintFeedbackType: z.string().optional(),
    })
    .optional(),
  mail: z
    .object({ headers: z.array(z.object({ name: z.string(), value: z.string() })).optional() })
    .optional(),
});

/** The bounce or complaint an SES notification (the SNS message's `Message`) reports. */
export function sesReports(messageText: string): RelayReport[] {
  let json: unknown;
  try {
    json = JSON.parse(messageText);
  } catch {
    return [];
  }
  const parsed = sesNotification.safeParse(json);
  if (!parsed.success) return [];
  const { bounce, complaint, mail } = parsed.data;
  const type = parsed.data.notificationType ?? parsed.data.eventType;
  const token =
    mail?.headers?.find((header) => header.name.toLowerCase() === COPY_HEADER.toLowerCase())
      ?.value ?? null;
  const report = (
    kind: DeliveryReportKind,
    sourceEventId: string,
    detail: string | null,
    at?: string,
  ): RelayReport[] => {
    const occurredAt = at ? new Date(at) : new Date();
    return [
      {
        sourceEventId,
        token,
        kind,
        detail,
        occurredAt: Number.isNaN(occurredAt.getTime()) ? new Date() : occurredAt,
      },
    ];
  };
  if (type === "Bounce" && bounce) {
    const kind =
      bounce.bounceType === "Permanent"
        ? "hard_bounce"
        : bounce.bounceType === "Transient"
          ? "soft_bounce"
          : null;
    const detail = bounce.bouncedRecipients?.[0]?.diagnosticCode ?? bounce.bounceType;
    return kind ? report(kind, bounce.feedbackId, detail, bounce.timestamp) : [];
  }
  if (type === "Complaint" && complaint && complaint.complaintFeedbackType !== "not-spam") {
    return report(
      "complaint",
      complaint.feedbackId,
      complaint.complaintFeedbackType ?? null,
      complaint.timestamp,
    );
  }
  return [];
}

/** The SES webhook, whole: rate limit, body, topic, signature, then confirmation or reports. */
export async function receiveSesWebhook(request: Request): Promise<Response> {
  const refused = await refuseOverRateLimit(request);
  if (refused) return refused;
  const rawBody = await readBodyText(request, LIMITS.webhookMaxBodyBytes);
  if (rawBody === null) return Response.json({ error: "body too large" }, { status: 413 });
  const topic = env.SES_SNS_TOPIC_ARN;
  if (!topic) return Response.json({ error: "not configured" }, { status: 404 });
  let parsed: ReturnType<typeof snsMessage.safeParse>;
  try {
    parsed = snsMessage.safeParse(JSON.parse(rawBody));
  } catch {
    return Response.json({ error: "not an SNS message" }, { status: 400 });
  }
  if (!parsed.success) return Response.json({ error: "not an SNS message" }, { status: 400 });
  const message = parsed.data;
  if (message.TopicArn !== topic || !isSnsUrl(message.SigningCertURL)) {
    console.warn(`[deliverability] SNS message from topic ${message.TopicArn} refused`);
    return Response.json({ error: "invalid signature" }, { status: 401 });
  }
  let certificate: string;
  try {
    certificate = await signingCertificate(message.SigningCertURL);
  } catch {
    // SNS retries: the next try may fetch the certificate.
    return Response.json({ error: "certificate unavailable" }, { status: 503 });
  }
  if (!verifySnsSignature(message, certificate)) {
    console.warn("[deliverability] ses webhook with a bad signature refused");
    return Response.json({ error: "invalid signature" }, { status: 401 });
  }
  if (message.Type === "SubscriptionConfirmation") {
    if (!message.SubscribeURL || !isSnsUrl(message.SubscribeURL)) {
      return Response.json({ error: "no SubscribeURL" }, { status: 400 });
    }
    await safeFetch(message.SubscribeURL, {
      maxBytes: 16 * 1024,
      timeoutMs: 5_000,
      maxRedirects: 0,
      accept: "*/*",
    });
    return Response.json({ subscribed: true });
  }
  if (message.Type !== "Notification") return Response.json({ ignored: message.Type });
  return Response.json(applyRelayReports("ses", sesReports(message.Message)));
}
