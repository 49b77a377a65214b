import crypto from "node:crypto";
import type { HeaderValue, StructuredHeader } from "mailparser";
import { copyTokensIn } from "./copy-token.server";
import {
  type DeliveryReportKind,
  type ReportOutcome,
  recordDeliveryReport,
} from "./delivery-reports.server";

/**
 * Bounces and complaints that arrive as mail, through the inbound hook
 * (app/routes/webhooks+/inbound-email.ts): RFC 3464 delivery status
 * notifications and RFC 5965 abuse reports, each a multipart/report. The copy
 * is found by the token in the address the report was sent to (the VERP
 * return path) or in the returned message's headers, never by the recipient
 * the report names; anyone can send us such a message.
 */
export type ReportMessage = {
  source: "dsn" | "arf";
  sourceEventId: string;
  /** From the one genuine token the message carries; null when none, or several that disagree. */
  ledgerRecipientId: number | null;
  kind: DeliveryReportKind;
  detail: string | null;
  occurredAt: Date;
};

/** RFC 822-style fields ("Name: value", folded lines joined), in groups split by blank lines. */
function fieldGroups(text: string) {
  return text
    .replace(/\r\n/g, "\n")
    .split(/\n\s*\n/)
    .map((group) => {
      const fields = new Map<string, string>();
      for (const line of group.replace(/\n[ \t]+/g, " ").split("\n")) {
        const colon = line.indexOf(":");
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
      }
      return fields;
    })
    .filter((fields) => fields.size > 0);
}

/**
 * A failed delivery, from the per-recipient fields: a 5.x.x status is a hard
 * bounce; a 4.x.x one that the server gave up on ("failed") is a soft bounce.
 * Delays, relays and successes are no bounce.
 */
function bounceOf(deliveryStatus: string) {
  for (const fields of fieldGroups(deliveryStatus)) {
    if (fields.get("action")?.toLowerCase() !== "failed") continue;
    const status = fields.get("status") ?? "";
    const kind: DeliveryReportKind | null = status.startsWith("5")
      ? "hard_bounce"
      : status.startsWith("4")
        ? "soft_bounce"
        : null;
    if (kind) return { kind, detail: fields.get("diagnostic-code") ?? status };
  }
  return null;
}

/** Abuse, fraud and virus reports are complaints; "not-spam" and authentication failures are not. */
const COMPLAINT_TYPES = new Set(["abuse", "fraud", "virus"]);

function complaintOf(feedbackReport: string) {
  const fields = fieldGroups(feedbackReport)[0];
  const type = fields?.get("feedback-type")?.toLowerCase();
  return type && COMPLAINT_TYPES.has(type)
    ? { kind: "complaint" as const, detail: `Feedback-Type: ${type}` }
    : null;
}

/** A header mailparser read as a value with parameters (Content-Type, Content-Disposition). */
function isStructured(value: HeaderValue | undefined): value is StructuredHeader {
  return (
    typeof value === "object" &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    "params" in value &&
    typeof value.value === "string" &&
    typeof value.params === "object"
  );
}

/** The report a raw message carries, or null when it is no bounce or complaint report. */
export async function readReportMessage(raw: string): Promise<ReportMessage | null> {
  // Loaded on the first inbound message, not at every start (docs/decisions/0083-one-build.md).
  const { simpleParser } = await import("mailparser");
  // keepDeliveryStatus: the status part as an attachment, not folded into the text.
  const message = await simpleParser(raw, {
    skipHtmlToText: true,
    skipTextToHtml: true,
    keepDeliveryStatus: true,
  });
  const contentType = message.headers.get("content-type");
  if (!isStructured(contentType)) return null;
  if (contentType.value.toLowerCase() !== "multipart/report") return null;
  const reportType = (contentType.params["report-type"] ?? "").toLowerCase();
  const part = (type: string) =>
    message.attachments
      .find((attachment) => attachment.contentType.toLowerCase() === type)
      ?.content.toString("utf8") ?? "";
  const returned = part("message/rfc822") || part("text/rfc822-headers");
  const returnedHeaders = returned.replace(/\r\n/g, "\n").split("\n\n")[0] ?? "";
  const ownHeaders = raw.replace(/\r\n/g, "\n").split("\n\n")[0] ?? "";
  let found: { kind: DeliveryReportKind; detail: string | null } | null = null;
  let source: ReportMessage["source"];
  let tokenText = `${ownHeaders}\n${returnedHeaders}`;
  if (reportType === "delivery-status") {
    source = "dsn";
    found = bounceOf(part("message/delivery-status") || part("message/global-delivery-status"));
  } else if (reportType === "feedback-report") {
    source = "arf";
    const feedback = part("message/feedback-report");
    found = complaintOf(feedback);
    // Original-Mail-From is the return path the complained-of copy had.
    tokenText += `\n${feedback}`;
  } else {
    return null;
  }
  if (!found) return null;
  const copies = copyTokensIn(tokenText);
  return {
    source,
    sourceEventId:
      message.messageId ?? crypto.createHash("sha256").update(raw).digest("hex").slice(0, 40),
    ledgerRecipientId: copies.length === 1 ? copies[0]! : null,
    kind: found.kind,
    detail: found.detail,
    occurredAt: message.date && !Number.isNaN(message.date.getTime()) ? message.date : new Date(),
  };
}

/** Records the report when it names one copy we sent; otherwise logs it and changes nothing. */
export function applyReportMessage(
  report: ReportMessage,
): ReportOutcome | { outcome: "unknown copy" } {
  const { ledgerRecipientId } = report;
  const outcome =
    ledgerRecipientId === null
      ? ({ outcome: "unknown copy" } as const)
      : recordDeliveryReport({ ...report, ledgerRecipientId });
  if (outcome.outcome === "unknown copy") {
    console.warn(
      `[deliverability] ${report.source} ${report.kind} message ${report.sourceEventId} names no copy we sent: ignored`,
    );
  }
  return outcome;
}
