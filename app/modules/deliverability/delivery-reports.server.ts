import { and, desc, eq, inArray, lte, sql } from "drizzle-orm";
import {
  deliveryReports,
  folders,
  mailboxSuppressions,
  sendLedger,
  sendLedgerRecipients,
} from "#db/schema";
import type { Transaction } from "#db/types";
import { writeTransaction } from "~/platform/db.server";
import { mailboxKey, mailboxLikePattern } from "~/platform/email-address";
import { reviewSenderReputation } from "./sender-reputation.server";

/**
 * Reports that a copy of a newsletter bounced or was marked as spam, and the
 * rule they apply (docs/product-rules.md, "Deliverability";
 * docs/decisions/0121-suppression-by-mailbox.md): a hard bounce or a
 * complaint suppresses the mailbox for every sender until lifted;
 * SOFT_BOUNCES_IN_A_ROW soft bounces on the mailbox's latest copies suppress
 * it for SOFT_BOUNCE_SUPPRESSION_DAYS. A report names its copy by its
 * ledger recipient id, which callers took from a verified token
 * (copy-token.server.ts), never from the address a report claims.
 */
export const DELIVERY_REPORT_KINDS = ["hard_bounce", "soft_bounce", "complaint"] as const;
export type DeliveryReportKind = (typeof DELIVERY_REPORT_KINDS)[number];

export const SOFT_BOUNCES_IN_A_ROW = 3;
export const SOFT_BOUNCE_SUPPRESSION_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export type DeliveryReport = {
  /** ses, postmark, mailgun, sendgrid, resend, dsn, arf or smtp. */
  source: string;
  /** The report's own id at its source: the same report delivered twice counts once. */
  sourceEventId: string;
  ledgerRecipientId: number;
  kind: DeliveryReportKind;
  detail?: string | null;
  occurredAt: Date;
};

export type ReportOutcome =
  | { outcome: "recorded"; reportId: number; suppressed: boolean }
  | { outcome: "duplicate" }
  | { outcome: "unknown copy" };

/** Stronger reasons replace weaker ones; a complaint is never overwritten by a bounce. */
const STRENGTH: Record<DeliveryReportKind, number> = {
  soft_bounce: 0,
  hard_bounce: 1,
  complaint: 2,
};

/** The copy a report is about, only if something was handed to a mail server for it. */
function copyOf(tx: Transaction, ledgerRecipientId: number) {
  return tx
    .select({
      email: sendLedgerRecipients.email,
      folderId: sendLedger.folderId,
      senderUserId: folders.userId,
    })
    .from(sendLedgerRecipients)
    .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(
      and(
        eq(sendLedgerRecipients.id, ledgerRecipientId),
        inArray(sendLedgerRecipients.status, ["sent", "bounced"]),
      ),
    )
    .get();
}

export function recordDeliveryReport(report: DeliveryReport): ReportOutcome {
  let senderUserId: number | null = null;
  const outcome = writeTransaction((tx): ReportOutcome => {
    const copy = copyOf(tx, report.ledgerRecipientId);
    const mailbox = copy ? mailboxKey(copy.email) : null;
    if (!copy || !mailbox) return { outcome: "unknown copy" } as const;
    const inserted = tx
      .insert(deliveryReports)
      .values({
        source: report.source,
        sourceEventId: report.sourceEventId.slice(0, 200),
        ledgerRecipientId: report.ledgerRecipientId,
        senderUserId: copy.senderUserId,
        folderId: copy.folderId,
        email: copy.email,
        mailbox,
        kind: report.kind,
        detail: report.detail?.slice(0, 500) ?? null,
        occurredAt: report.occurredAt,
      })
      .onConflictDoNothing({ target: [deliveryReports.source, deliveryReports.sourceEventId] })
      .returning({ id: deliveryReports.id })
      .get();
    if (!inserted) return { outcome: "duplicate" } as const;
    const now = new Date();
    let suppressed = false;
    if (report.kind !== "soft_bounce") {
      suppressed = suppress(tx, {
        mailbox,
        email: copy.email,
        reason: report.kind,
        until: null,
        reportId: inserted.id,
      });
    } else if (softBouncesInARow(tx, mailbox, report.ledgerRecipientId)) {
      suppressed = suppress(tx, {
        mailbox,
        email: copy.email,
        reason: "soft_bounce",
        until: new Date(now.getTime() + SOFT_BOUNCE_SUPPRESSION_DAYS * DAY_MS),
        reportId: inserted.id,
      });
    }
    senderUserId = copy.senderUserId;
    return { outcome: "recorded", reportId: inserted.id, suppressed };
  });
  // Every counted report may tip its sender over the limits: the pause starts now, not at the next send.
  if (senderUserId !== null) reviewSenderReputation(senderUserId);
  return outcome;
}

/**
 * Whether the reported copy and the SOFT_BOUNCES_IN_A_ROW - 1 copies sent to
 * the same mailbox just before it each had a soft bounce reported: a copy in
 * between with no report (delivered, as far as we know) breaks the run.
 */
function softBouncesInARow(tx: Transaction, mailbox: string, ledgerRecipientId: number) {
  const latestCopies = tx
    .select({ id: sendLedgerRecipients.id, email: sendLedgerRecipients.email })
    .from(sendLedgerRecipients)
    .where(
      and(
        lte(sendLedgerRecipients.id, ledgerRecipientId),
        inArray(sendLedgerRecipients.status, ["sent", "bounced"]),
        sql`lower(${sendLedgerRecipients.email}) like ${mailboxLikePattern(mailbox)} escape '\\'`,
      ),
    )
    .orderBy(desc(sendLedgerRecipients.id))
    .all()
    .filter((row) => mailboxKey(row.email) === mailbox)
    .slice(0, SOFT_BOUNCES_IN_A_ROW)
    .map((row) => row.id);
  if (latestCopies.length < SOFT_BOUNCES_IN_A_ROW) return false;
  const bounced = tx
    .selectDistinct({ id: deliveryReports.ledgerRecipientId })
    .from(deliveryReports)
    .where(
      and(
        eq(deliveryReports.kind, "soft_bounce"),
        inArray(deliveryReports.ledgerRecipientId, latestCopies),
      ),
    )
    .all();
  return bounced.length === latestCopies.length;
}

/** Writes or strengthens the mailbox's suppression; whether anything changed. */
function suppress(
  tx: Transaction,
  values: {
    mailbox: string;
    email: string;
    reason: DeliveryReportKind;
    until: Date | null;
    reportId: number;
  },
) {
  const existing = tx
    .select()
    .from(mailboxSuppressions)
    .where(eq(mailboxSuppressions.mailbox, values.mailbox))
    .get();
  const now = new Date();
  const existingHolds =
    existing && (existing.suppressedUntil === null || existing.suppressedUntil > now);
  if (existing && existingHolds && STRENGTH[existing.reason] > STRENGTH[values.reason])
    return false;
  if (
    existing &&
    existingHolds &&
    existing.reason === values.reason &&
    existing.suppressedUntil === null
  )
    return false;
  tx.insert(mailboxSuppressions)
    .values({
      mailbox: values.mailbox,
      email: values.email,
      reason: values.reason,
      suppressedUntil: values.until,
      reportId: values.reportId,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: mailboxSuppressions.mailbox,
      set: {
        email: values.email,
        reason: values.reason,
        suppressedUntil: values.until,
        reportId: values.reportId,
        createdAt: now,
        updatedAt: now,
      },
    })
    .run();
  return true;
}
