import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { folders, sendLedger, sendLedgerRecipients, users } from "#db/schema";
import { senderFirstName, senderFullName } from "#emails/newsletter";
import { hasOptedOut } from "~/modules/recipients/opt-outs.server";
import {
  compactUnsubscribeUrl,
  issueLinkCode,
  readArchiveCode,
  resubscribeToken,
} from "~/modules/recipients/recipient-links.server";
import { formatDay } from "~/platform/dates";
import { db } from "~/platform/db.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { RECIPIENT_LINK_USES, type RecipientLinkUse } from "./recipient-link-limit.server";

/**
 * "All issues of <folder>": every issue of one folder this address was sent as
 * a recipient, newest first, each opening its own web version
 * (docs/decisions/0214-the-recipients-archive.md). Reached by a signed link
 * (recipient-links.server.ts, `archiveCode`), no account. Like the web version it
 * ends when the address leaves the folder or everything (then only the way
 * back is shown), leaves out issues the sender deleted, and names no other
 * recipient. A code for an address that was never sent an issue of the folder
 * is "unknown", whatever else is true.
 */
export const ARCHIVE_PAGE_SIZE = 50;

export type ArchiveIssue = {
  /** `/v/<code>`: this recipient's web version of the issue. */
  href: string;
  sentOn: string;
  itemCount: number;
  issueNote: string | null;
};

export type RecipientArchive =
  | { state: "unknown" }
  | {
      state: "left";
      folderName: string;
      senderName: string;
      email: string;
      resubscribe: { email: string; folder: number; token: string };
    }
  | {
      state: "open";
      folderName: string;
      senderName: string;
      senderFirstName: string;
      email: string;
      issues: ArchiveIssue[];
      page: number;
      hasOlder: boolean;
      unsubscribeUrl: string;
    };

/** Each genuine code counts its uses like the web version's links; a forged one passes untouched (404). */
export async function takeArchiveUse(code: string): Promise<RecipientLinkUse> {
  const link = readArchiveCode(code);
  if (!link) return { allowed: true };
  const verdict = await consumeRateLimit(
    RECIPIENT_LINK_USES,
    `archive:${link.folderId}:${link.email}`,
  );
  return verdict.allowed
    ? { allowed: true }
    : { allowed: false, retryAfterSeconds: verdict.retryAfterSeconds };
}

/** This address's copies of the folder's issues, newest first: one page, and whether there are more. */
function receivedIssues(folderId: number, email: string, page: number) {
  const rows = db
    .select({
      ledgerId: sendLedger.id,
      itemIds: sendLedger.itemIds,
      issueNote: sendLedger.issueNote,
      sentAt: sendLedgerRecipients.sentAt,
    })
    .from(sendLedgerRecipients)
    .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
    .where(
      and(
        eq(sendLedger.folderId, folderId),
        inArray(sendLedger.status, ["sending", "sent"]),
        isNull(sendLedger.deletedAt),
        eq(sendLedgerRecipients.email, email),
        eq(sendLedgerRecipients.kind, "recipient"),
        eq(sendLedgerRecipients.status, "sent"),
      ),
    )
    .orderBy(desc(sendLedgerRecipients.sentAt), desc(sendLedger.id))
    .limit(ARCHIVE_PAGE_SIZE + 1)
    .offset((page - 1) * ARCHIVE_PAGE_SIZE)
    .all();
  return { rows: rows.slice(0, ARCHIVE_PAGE_SIZE), hasOlder: rows.length > ARCHIVE_PAGE_SIZE };
}

function everReceived(folderId: number, email: string) {
  return (
    db
      .select({ one: sql`1` })
      .from(sendLedgerRecipients)
      .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
      .where(
        and(
          eq(sendLedger.folderId, folderId),
          eq(sendLedgerRecipients.email, email),
          eq(sendLedgerRecipients.kind, "recipient"),
          eq(sendLedgerRecipients.status, "sent"),
        ),
      )
      .get() !== undefined
  );
}

export function recipientArchive(code: string, page = 1): RecipientArchive {
  const link = readArchiveCode(code);
  if (!link || !everReceived(link.folderId, link.email)) return { state: "unknown" };
  const folder = db.select().from(folders).where(eq(folders.id, link.folderId)).get();
  const sender = folder && db.select().from(users).where(eq(users.id, folder.userId)).get();
  if (!folder || !sender) return { state: "unknown" };
  const { email } = link;
  if (hasOptedOut(folder.id, email)) {
    return {
      state: "left",
      folderName: folder.name,
      senderName: senderFullName(sender),
      email,
      resubscribe: { email, folder: folder.id, token: resubscribeToken(email, folder.id) },
    };
  }
  const { rows, hasOlder } = receivedIssues(folder.id, email, page);
  return {
    state: "open",
    folderName: folder.name,
    senderName: senderFullName(sender),
    senderFirstName: senderFirstName(sender),
    email,
    issues: rows.map((row) => ({
      href: `/v/${issueLinkCode("web", row.ledgerId, email)}`,
      // The sender's calendar: the day the issue was theirs to send.
      sentOn: row.sentAt ? formatDay(row.sentAt, sender.timeZone) : "",
      itemCount: row.itemIds.length,
      issueNote: row.issueNote?.trim() || null,
    })),
    page,
    hasOlder,
    unsubscribeUrl: compactUnsubscribeUrl(folder.id, email),
  };
}
