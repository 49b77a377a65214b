import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import { deliveryReports, mailboxSuppressions, sendLedgerRecipients } from "#db/schema";
import { db } from "~/platform/db.server";
import { mailboxKey } from "~/platform/email-address";

/**
 * What delivery reports and suppressed mailboxes mean, in the sender's words
 * (docs/decisions/0126-suppressions-in-the-senders-words.md): "Mum's address
 * no longer exists", "Sam marked your newsletter as spam". A recipient is
 * named as the folder names them, else by their address. A complaint another
 * sender's mail drew is told without saying whose (docs/decisions/0045-recipients-privacy.md).
 */
type ReportKind = (typeof deliveryReports.$inferSelect)["kind"];
type Named = { name?: string | null; email: string };
type DayFormat = (date: Date) => string;

/** The folder's name for the recipient; the legacy placeholder "recipient" is no name. */
export function whoIs(recipient: Named) {
  const name = recipient.name?.trim();
  return name && name !== "recipient" ? name : recipient.email;
}

/** "Mum's", "James's", "ann@example.com's". */
export function possessive(who: string) {
  return `${who}'s`;
}

/** What one report about one copy says, for the Sent archive. */
export function reportNotice(kind: ReportKind, who: string) {
  switch (kind) {
    case "hard_bounce":
      return `${possessive(who)} address no longer exists`;
    case "complaint":
      return `${who} marked your newsletter as spam`;
    case "soft_bounce":
      return `${possessive(who)} mailbox could not take this issue (full or away for now)`;
  }
}

type Suppression = typeof mailboxSuppressions.$inferSelect;

/** Why a mailbox gets nothing now, for the recipients page. */
export function suppressionNotice(
  suppression: Pick<Suppression, "reason" | "suppressedUntil">,
  who: string,
  ownComplaint: boolean,
  day: DayFormat,
) {
  switch (suppression.reason) {
    case "hard_bounce":
      return `${possessive(who)} address no longer exists: nothing is sent to it`;
    case "complaint":
      return ownComplaint
        ? `${who} marked your newsletter as spam: nothing is sent to them unless they re-subscribe`
        : `${who} reported mail sent through Thoughtfully as spam: nothing is sent to them unless they re-subscribe`;
    case "soft_bounce":
      return suppression.suppressedUntil
        ? `${possessive(who)} mailbox kept refusing mail: nothing is sent to it until ${day(suppression.suppressedUntil)}`
        : `${possessive(who)} mailbox kept refusing mail: nothing is sent to it for now`;
  }
}

/** The suppressions in force now for these mailboxes, by mailbox. */
function suppressionsInForce(mailboxes: string[], now: Date) {
  if (mailboxes.length === 0) return new Map<string, Suppression>();
  return new Map(
    db
      .select()
      .from(mailboxSuppressions)
      .where(
        and(
          inArray(mailboxSuppressions.mailbox, mailboxes),
          or(
            isNull(mailboxSuppressions.suppressedUntil),
            gt(mailboxSuppressions.suppressedUntil, now),
          ),
        ),
      )
      .all()
      .map((row) => [row.mailbox, row]),
  );
}

/** Of these mailboxes, those this sender's own mail drew a complaint from. */
function ownComplaints(senderUserId: number, mailboxes: string[]) {
  if (mailboxes.length === 0) return new Set<string>();
  return new Set(
    db
      .selectDistinct({ mailbox: deliveryReports.mailbox })
      .from(deliveryReports)
      .where(
        and(
          eq(deliveryReports.senderUserId, senderUserId),
          eq(deliveryReports.kind, "complaint"),
          inArray(deliveryReports.mailbox, mailboxes),
        ),
      )
      .all()
      .map((row) => row.mailbox),
  );
}

/**
 * For one sender's folder: each recipient whose mailbox is suppressed now,
 * by address as listed, with the line the recipients page shows.
 */
export function recipientSuppressionNotices(
  senderUserId: number,
  recipients: Named[],
  day: DayFormat,
  now = new Date(),
) {
  const keyed = recipients.flatMap((recipient) => {
    const mailbox = mailboxKey(recipient.email);
    return mailbox ? [{ recipient, mailbox }] : [];
  });
  const mailboxes = keyed.map((entry) => entry.mailbox);
  const suppressed = suppressionsInForce(mailboxes, now);
  const own = ownComplaints(senderUserId, mailboxes);
  const notices = new Map<string, string>();
  for (const { recipient, mailbox } of keyed) {
    const suppression = suppressed.get(mailbox);
    if (!suppression) continue;
    notices.set(
      recipient.email,
      suppressionNotice(suppression, whoIs(recipient), own.has(mailbox), day),
    );
  }
  return notices;
}

/**
 * For one sender's sent issues: per issue, what the reports about its copies
 * said, one line per copy and kind ("Mum's address no longer exists"). Only
 * reports about this sender's copies; names from the folder's recipients.
 */
export function issueReportNotices(senderUserId: number, ledgerIds: number[], recipients: Named[]) {
  const byLedger = new Map<number, { email: string; notice: string }[]>();
  if (ledgerIds.length === 0) return byLedger;
  const names = new Map(
    recipients.flatMap((recipient) => {
      const mailbox = mailboxKey(recipient.email);
      return mailbox ? [[mailbox, recipient] as const] : [];
    }),
  );
  const rows = db
    .selectDistinct({
      ledgerId: sendLedgerRecipients.ledgerId,
      email: sendLedgerRecipients.email,
      mailbox: deliveryReports.mailbox,
      kind: deliveryReports.kind,
    })
    .from(deliveryReports)
    .innerJoin(sendLedgerRecipients, eq(sendLedgerRecipients.id, deliveryReports.ledgerRecipientId))
    .where(
      and(
        eq(deliveryReports.senderUserId, senderUserId),
        inArray(sendLedgerRecipients.ledgerId, ledgerIds),
      ),
    )
    .orderBy(deliveryReports.id)
    .all();
  for (const row of rows) {
    const listed = names.get(row.mailbox);
    const who = whoIs({ name: listed?.name, email: row.email });
    const notices = byLedger.get(row.ledgerId) ?? [];
    notices.push({ email: row.email, notice: reportNotice(row.kind, who) });
    byLedger.set(row.ledgerId, notices);
  }
  return byLedger;
}

/**
 * The folder form's refusal of a newly added address whose mailbox nobody
 * may mail: it no longer exists, or its owner reported spam (only they can
 * lift that). A mailbox the folder already lists is not "added": editing the
 * folder's name must not fail on it (the send skips it, the recipients page
 * says why). A mailbox refusing mail for a while is accepted: that ends by
 * itself.
 */
export function suppressedAddressRefusal(listedAlready: string[], now = new Date()) {
  const kept = new Set(listedAlready.map(mailboxKey));
  return (email: string, name: string | undefined) => {
    const mailbox = mailboxKey(email);
    if (!mailbox || kept.has(mailbox)) return null;
    const suppression = suppressionsInForce([mailbox], now).get(mailbox);
    const who = whoIs({ name, email });
    if (suppression?.reason === "hard_bounce") {
      return `${possessive(who)} address no longer exists: mail to it comes back undelivered`;
    }
    if (suppression?.reason === "complaint") {
      return `${who} reported mail sent through Thoughtfully as spam: only they can lift that, by re-subscribing from a link they received`;
    }
    return null;
  };
}
