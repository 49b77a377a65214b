import { and, eq, inArray, isNull } from "drizzle-orm";
import { folders, sendLedger, sendLedgerRecipients, users } from "#db/schema";
import { personalizePage, renderWebVersion } from "#emails/newsletter.server";
import {
  compactUnsubscribeUrl,
  type IssueLinkPurpose,
  readIssueLinkCode,
  webVersionUrl,
} from "~/modules/recipients/recipient-links.server";
import { hasOptedOut } from "~/modules/recipients/recipients.server";
import { db } from "~/platform/db.server";
import { filesKept, issueItems } from "./sent-archive.server";

/**
 * One recipient's copy of a sent issue, reached by a signed link from their
 * e-mail (app/modules/recipients/recipient-links.server.ts, `issueLinkCode`), with no
 * account. It exists only while: the code is valid for its purpose, the issue
 * was sent and not deleted by its sender, this address was actually mailed
 * it, and (for recipients) the address has not left the folder or everything.
 * A copy sent to the sender (cc) stays theirs. Nothing returned names any
 * other recipient.
 */
export function findRecipientCopy(purpose: IssueLinkPurpose, code: string) {
  const link = readIssueLinkCode(purpose, code);
  if (!link) return null;
  const ledger = db
    .select()
    .from(sendLedger)
    .where(
      and(
        eq(sendLedger.id, link.ledgerId),
        inArray(sendLedger.status, ["sending", "sent"]),
        isNull(sendLedger.deletedAt),
      ),
    )
    .get();
  if (!ledger) return null;
  const copy = db
    .select({ kind: sendLedgerRecipients.kind })
    .from(sendLedgerRecipients)
    .where(
      and(
        eq(sendLedgerRecipients.ledgerId, ledger.id),
        eq(sendLedgerRecipients.email, link.email),
        eq(sendLedgerRecipients.status, "sent"),
      ),
    )
    .all();
  if (copy.length === 0) return null;
  const asRecipient = copy.some((row) => row.kind === "recipient");
  if (asRecipient && hasOptedOut(ledger.folderId, link.email)) return null;
  return { ledger, email: link.email, asRecipient };
}

/** The page of a web version: the newsletter as this recipient got it, files linked, or null. */
export function webVersionPage(code: string) {
  const copy = findRecipientCopy("web", code);
  if (!copy) return null;
  const folder = db.select().from(folders).where(eq(folders.id, copy.ledger.folderId)).get();
  const sender = folder && db.select().from(users).where(eq(users.id, folder.userId)).get();
  const items = issueItems(copy.ledger);
  if (!folder || !sender || items.length === 0) return null;
  const now = new Date();
  const kept = items.map((item) => ({
    ...item,
    // Files past the archive retention are gone: the page names them only.
    filePaths: filesKept(item, now) || item.sentAt === null ? item.filePaths : [],
  }));
  const html = renderWebVersion(
    { folder, sender, items: kept },
    (itemId, index) => `/v-files/${code}/${itemId}/${index}`,
  );
  return personalizePage(html, {
    email: copy.email,
    unsubscribeUrl: compactUnsubscribeUrl(folder.id, copy.email),
    webVersionUrl: webVersionUrl(copy.ledger.id, copy.email),
  });
}

/** A photo or file of a web version, through the same check as the page; else null. */
export function webVersionFile(code: string, itemId: number, index: number) {
  const copy = findRecipientCopy("web", code);
  if (!copy) return null;
  const item = issueItems(copy.ledger).find((candidate) => candidate.id === itemId);
  if (!item || (item.sentAt !== null && !filesKept(item))) return null;
  const key = item.filePaths[index];
  if (!key) return null;
  return {
    key,
    name: item.fileNames[index] ?? "file",
    mimeType: item.mimeTypes[index] ?? "application/octet-stream",
  };
}
