import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { contentItems, folders, sendLedger, sendLedgerRecipients, users } from "#db/schema";
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
import { filesKept } from "./sent-archive.server";
import { webVersionFileUrl } from "./web-version.server";

/**
 * "All issues of <folder>": every issue of one folder this address was sent as
 * a recipient, newest first, each opening its own web version
 * (docs/decisions/0214-the-recipients-archive.md). Reached by a signed link
 * (recipient-links.server.ts, `archiveCode`), no account. Like the web version it
 * ends when the address leaves the folder or everything (then only the way
 * back is shown), leaves out issues the sender deleted, and names no other
 * recipient. A code for an address that was never sent an issue of the folder
 * is "unknown", whatever else is true. Each issue shows its items' titles and
 * its first photo's thumbnail, served through that issue's web-version link
 * (`/v-files/<code>/<item>/thumb`), so the picture needs the same proof as the
 * issue and goes with it (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
 */
export const ARCHIVE_PAGE_SIZE = 50;

export type ArchiveIssue = {
  /** `/v/<code>`: this recipient's web version of the issue. */
  href: string;
  sentOn: string;
  itemCount: number;
  issueNote: string | null;
  /** The items' titles, in the order the e-mail showed them. */
  titles: string[];
  /** The first photo item's thumbnail while its files are kept; else null. */
  picture: { url: string; alt: string } | null;
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
      ledgerStatus: sendLedger.status,
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

type ReceivedIssue = ReturnType<typeof receivedIssues>["rows"][number];

/**
 * Per issue of the page, its items' titles and first photo (one query for the
 * page): the items it carried, in the e-mail's order; while it is still
 * sending they are not marked sent yet, as the web version has it.
 */
function issueContents(
  folderId: number,
  issues: ReceivedIssue[],
  code: (ledgerId: number) => string,
) {
  const itemIds = [...new Set(issues.flatMap((issue) => issue.itemIds))];
  const items =
    itemIds.length === 0
      ? []
      : db
          .select({
            id: contentItems.id,
            type: contentItems.type,
            title: contentItems.title,
            filePaths: contentItems.filePaths,
            sentAt: contentItems.sentAt,
          })
          .from(contentItems)
          .where(and(eq(contentItems.folderId, folderId), inArray(contentItems.id, itemIds)))
          .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
          .all();
  const now = new Date();
  return new Map(
    issues.map((issue) => {
      const carried = items.filter(
        (item) =>
          issue.itemIds.includes(item.id) &&
          (issue.ledgerStatus === "sending" || item.sentAt !== null),
      );
      const photo = carried.find(
        (item) =>
          item.type === "photo" &&
          item.filePaths[0] &&
          (item.sentAt === null || filesKept(item, now)),
      );
      return [
        issue.ledgerId,
        {
          titles: carried.map((item) => item.title.trim()).filter(Boolean),
          picture: photo
            ? { url: webVersionFileUrl(code(issue.ledgerId), photo.id, "thumb"), alt: photo.title }
            : null,
        },
      ];
    }),
  );
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
  const webCode = (ledgerId: number) => issueLinkCode("web", ledgerId, email);
  const contents = issueContents(folder.id, rows, webCode);
  return {
    state: "open",
    folderName: folder.name,
    senderName: senderFullName(sender),
    senderFirstName: senderFirstName(sender),
    email,
    issues: rows.map((row) => ({
      href: `/v/${webCode(row.ledgerId)}`,
      // The sender's calendar: the day the issue was theirs to send.
      sentOn: row.sentAt ? formatDay(row.sentAt, sender.timeZone) : "",
      itemCount: row.itemIds.length,
      issueNote: row.issueNote?.trim() || null,
      titles: contents.get(row.ledgerId)?.titles ?? [],
      picture: contents.get(row.ledgerId)?.picture ?? null,
    })),
    page,
    hasOlder,
    unsubscribeUrl: compactUnsubscribeUrl(folder.id, email),
  };
}
