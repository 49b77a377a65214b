import crypto from "node:crypto";
import { LIMITS } from "~/modules/plans/limits";
import { env } from "~/platform/env.server";
import { consumeRateLimit, type RateLimit } from "~/platform/rate-limit.server";
import { readBodyText } from "~/platform/request-body.server";
import { clientIp } from "~/platform/request-info.server";
import { sameSecret } from "~/platform/same-secret.server";
import { z } from "~/platform/zod";
import { COPY_METADATA_KEY, readCopyToken } from "./copy-token.server";
import { type DeliveryReportKind, recordDeliveryReport } from "./delivery-reports.server";

/**
 * The relays' bounce and complaint webhooks (docs/decisions/0122-relay-webhooks.md;
 * set-up in docs/deploy.md): each body's signature or token is checked first, in constant
 * time; then each event is matched to its copy by the token the copy carried
 * (copy-token.server.ts) and recorded. Events with no genuine token are
 * logged and answered like the others, so the relay does not retry them.
 * Replays need no timestamp check: a report's id counts once.
 */
export type RelayReport = {
  sourceEventId: string;
  token: string | null;
  kind: DeliveryReportKind;
  detail: string | null;
  occurredAt: Date;
};

type Relay = {
  /** The configured secret; unset, the webhook answers 404. */
  secret: () => string | undefined;
  verify: (request: Request, rawBody: string, secret: string) => boolean;
  /** The bounce and complaint events in a verified body; every other event is left out. */
  reports: (body: unknown) => RelayReport[];
};

/** Relays post in bursts after a big send; a client past this is asked to come back later. */
export const RELAY_WEBHOOK_REQUESTS: RateLimit = {
  name: "relay-webhook",
  points: 1200,
  durationSeconds: 60,
};

function dateOr(value: string | number | undefined, fallback = new Date()) {
  const date =
    typeof value === "number" ? new Date(value * 1000) : value ? new Date(value) : fallback;
  return Number.isNaN(date.getTime()) ? fallback : date;
}

const postmarkEvent = z.object({
  RecordType: z.string(),
  ID: z.union([z.number(), z.string()]),
  Type: z.string().optional(),
  Details: z.string().nullish(),
  Description: z.string().nullish(),
  BouncedAt: z.string().optional(),
  Metadata: z.record(z.string(), z.unknown()).nullish(),
});

const POSTMARK_HARD = new Set(["HardBounce", "BadEmailAddress", "ManuallyDeactivated"]);
const POSTMARK_SOFT = new Set(["SoftBounce", "Transient", "DnsError"]);

/** Postmark: HTTP basic auth in the webhook's URL; the password is POSTMARK_WEBHOOK_TOKEN. */
const postmark: Relay = {
  secret: () => env.POSTMARK_WEBHOOK_TOKEN,
  verify(request, _rawBody, secret) {
    const header = request.headers.get("authorization") ?? "";
    if (!header.toLowerCase().startsWith("basic ")) return false;
    const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
    const password = decoded.slice(decoded.indexOf(":") + 1);
    return decoded.includes(":") && sameSecret(password, secret);
  },
  reports(body) {
    const event = postmarkEvent.safeParse(body);
    if (!event.success) return [];
    const { RecordType, Type, ID, Metadata, BouncedAt } = event.data;
    const kind: DeliveryReportKind | null =
      RecordType === "SpamComplaint"
        ? "complaint"
        : RecordType === "Bounce" && Type && POSTMARK_HARD.has(Type)
          ? "hard_bounce"
          : RecordType === "Bounce" && Type && POSTMARK_SOFT.has(Type)
            ? "soft_bounce"
            : null;
    if (!kind) return [];
    const token = Metadata?.[COPY_METADATA_KEY];
    return [
      {
        sourceEventId: `${RecordType}-${ID}`,
        token: typeof token === "string" ? token : null,
        kind,
        detail: event.data.Details || event.data.Description || null,
        occurredAt: dateOr(BouncedAt),
      },
    ];
  },
};

const mailgunBody = z.object({
  signature: z.object({ timestamp: z.string(), token: z.string(), signature: z.string() }),
  "event-data": z.object({
    id: z.string(),
    event: z.string(),
    severity: z.string().optional(),
    timestamp: z.number().optional(),
    reason: z.string().optional(),
    "user-variables": z.record(z.string(), z.unknown()).optional(),
    "delivery-status": z
      .looseObject({ description: z.string().nullish(), message: z.string().nullish() })
      .optional(),
  }),
});

/**
 * Mailgun signs what it posts, its webhooks and its inbound routes alike: an
 * HMAC-SHA256 of timestamp and token under the webhook signing key.
 */
export function mailgunSignatureValid(
  key: string,
  { timestamp, token, signature }: { timestamp: string; token: string; signature: string },
) {
  const expected = crypto
    .createHmac("sha256", key)
    .update(timestamp + token)
    .digest("hex");
  return sameSecret(signature.toLowerCase(), expected);
}

/** Mailgun: its signature in the body (mailgunSignatureValid). */
const mailgun: Relay = {
  secret: () => env.MAILGUN_WEBHOOK_SIGNING_KEY,
  verify(_request, rawBody, secret) {
    const body = mailgunBody.safeParse(safeJson(rawBody));
    return body.success && mailgunSignatureValid(secret, body.data.signature);
  },
  reports(body) {
    const parsed = mailgunBody.safeParse(body);
    if (!parsed.success) return [];
    const event = parsed.data["event-data"];
    const kind: DeliveryReportKind | null =
      event.event === "complained"
        ? "complaint"
        : event.event === "failed"
          ? event.severity === "permanent"
            ? "hard_bounce"
            : "soft_bounce"
          : null;
    if (!kind) return [];
    const token = event["user-variables"]?.[COPY_METADATA_KEY];
    const status = event["delivery-status"];
    return [
      {
        sourceEventId: event.id,
        token: typeof token === "string" ? token : null,
        kind,
        detail: status?.description || status?.message || event.reason || null,
        occurredAt: dateOr(event.timestamp),
      },
    ];
  },
};

const sendgridEvent = z.looseObject({
  event: z.string(),
  sg_event_id: z.string(),
  type: z.string().optional(),
  reason: z.string().optional(),
  timestamp: z.number().optional(),
});

/**
 * SendGrid signs what it posts, its Event Webhook and an Inbound Parse with a
 * signing security policy alike: an ECDSA (P-256, SHA-256) signature of the
 * timestamp header followed by the raw body, checked with the base64 public
 * key SendGrid shows.
 */
export function sendgridSignatureValid(publicKey: string, request: Request, rawBody: Buffer) {
  const signed = sendgridSigned(publicKey, request);
  if (!signed) return false;
  try {
    return crypto.verify(
      "sha256",
      Buffer.concat([signed.timestamp, rawBody]),
      signed.key(),
      signed.signature,
    );
  } catch {
    return false;
  }
}

/** The same check over a body read as it streams (a spooled post), never held whole. */
export async function sendgridSignatureValidOver(
  publicKey: string,
  request: Request,
  body: AsyncIterable<Uint8Array>,
) {
  const signed = sendgridSigned(publicKey, request);
  if (!signed) return false;
  try {
    const verifier = crypto.createVerify("sha256").update(signed.timestamp);
    for await (const chunk of body) verifier.update(chunk);
    return verifier.verify(signed.key(), signed.signature);
  } catch {
    return false;
  }
}

/** SendGrid signs the timestamp header and then the body, with ECDSA; null without its headers. */
function sendgridSigned(publicKey: string, request: Request) {
  const signature = request.headers.get("x-twilio-email-event-webhook-signature");
  const timestamp = request.headers.get("x-twilio-email-event-webhook-timestamp");
  if (!signature || !timestamp) return null;
  return {
    timestamp: Buffer.from(timestamp),
    signature: Buffer.from(signature, "base64"),
    key: () =>
      crypto.createPublicKey({
        key: Buffer.from(publicKey, "base64"),
        format: "der",
        type: "spki",
      }),
  };
}

/** SendGrid: the Signed Event Webhook (sendgridSignatureValid, SENDGRID_WEBHOOK_PUBLIC_KEY). */
const sendgrid: Relay = {
  secret: () => env.SENDGRID_WEBHOOK_PUBLIC_KEY,
  verify(request, rawBody, secret) {
    return sendgridSignatureValid(secret, request, Buffer.from(rawBody));
  },
  reports(body) {
    if (!Array.isArray(body)) return [];
    return body.flatMap((entry): RelayReport[] => {
      const parsed = sendgridEvent.safeParse(entry);
      if (!parsed.success) return [];
      const event = parsed.data;
      // "blocked" is SendGrid's temporary refusal; "bounce" a permanent one.
      const kind: DeliveryReportKind | null =
        event.event === "spamreport"
          ? "complaint"
          : event.event === "bounce"
            ? event.type === "blocked"
              ? "soft_bounce"
              : "hard_bounce"
            : null;
      if (!kind) return [];
      const token = event[COPY_METADATA_KEY];
      return [
        {
          sourceEventId: event.sg_event_id,
          token: typeof token === "string" ? token : null,
          kind,
          detail: event.reason ?? null,
          occurredAt: dateOr(event.timestamp),
        },
      ];
    });
  },
};

export const RELAYS = { postmark, mailgun, sendgrid } as const;
export type RelayName = keyof typeof RELAYS;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export type RelayOutcome = { recorded: number; duplicates: number; unmatched: number };

/** Records each report whose token is genuine; the rest are logged, never matched by address. */
export function applyRelayReports(source: string, reports: RelayReport[]): RelayOutcome {
  const outcome: RelayOutcome = { recorded: 0, duplicates: 0, unmatched: 0 };
  for (const report of reports) {
    const ledgerRecipientId = report.token ? readCopyToken(report.token) : null;
    const result =
      ledgerRecipientId === null
        ? ({ outcome: "unknown copy" } as const)
        : recordDeliveryReport({ ...report, source, ledgerRecipientId });
    if (result.outcome === "recorded") outcome.recorded += 1;
    else if (result.outcome === "duplicate") outcome.duplicates += 1;
    else {
      outcome.unmatched += 1;
      console.warn(
        `[deliverability] ${source} ${report.kind} report ${report.sourceEventId} names no copy we sent: ignored`,
      );
    }
  }
  return outcome;
}

/** A 429 (relays and mail hooks retry) once the client is past RELAY_WEBHOOK_REQUESTS; null until then. */
export async function refuseOverRateLimit(request: Request): Promise<Response | null> {
  const verdict = await consumeRateLimit(RELAY_WEBHOOK_REQUESTS, clientIp(request) ?? "unknown");
  if (verdict.allowed) return null;
  return Response.json(
    { error: "too many requests" },
    { status: 429, headers: { "Retry-After": String(verdict.retryAfterSeconds) } },
  );
}

/**
 * A relay's webhook, whole: rate limit, body limit, configuration,
 * signature, then the reports. Plain Responses: relays read the status.
 */
export async function receiveRelayWebhook(name: RelayName, request: Request): Promise<Response> {
  const relay = RELAYS[name];
  const refused = await refuseOverRateLimit(request);
  if (refused) return refused;
  // Read (bounded) before anything else answers, so an oversized body is always refused as such.
  const rawBody = await readBodyText(request, LIMITS.webhookMaxBodyBytes);
  if (rawBody === null) return Response.json({ error: "body too large" }, { status: 413 });
  const secret = relay.secret();
  if (!secret) return Response.json({ error: "not configured" }, { status: 404 });
  if (!relay.verify(request, rawBody, secret)) {
    console.warn(`[deliverability] ${name} webhook with a bad signature refused`);
    return Response.json({ error: "invalid signature" }, { status: 401 });
  }
  return Response.json(applyRelayReports(name, relay.reports(safeJson(rawBody))));
}
