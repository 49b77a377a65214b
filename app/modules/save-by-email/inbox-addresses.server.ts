import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { folderInboxes, folders } from "#db/schema";
import { getFolder } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";

/**
 * Each folder's private address, `<code>@INBOUND_EMAIL_DOMAIN`
 * (docs/decisions/0158-save-by-email.md). The code is the capability, as a
 * Trello board's address is: 16 characters from 32 (80 random bits), no
 * letters that read alike, so it survives being read aloud or typed.
 */
const CODE_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
const CODE_LENGTH = 16;

function newCode() {
  // 256 is a multiple of 32: every character is equally likely.
  return [...crypto.randomBytes(CODE_LENGTH)].map((byte) => CODE_ALPHABET[byte % 32]).join("");
}

/** Null when saving by e-mail is off (no INBOUND_EMAIL_DOMAIN). */
export function inboxDomain() {
  return env.INBOUND_EMAIL_DOMAIN ?? null;
}

/**
 * The folder's address, or null: the feature is off, or the owner has not
 * asked for one yet. Never made here: pages read it on GET, and a replica
 * cannot write.
 */
export function inboxAddress(userId: number, folderId: number): string | null {
  const domain = inboxDomain();
  if (!domain) return null;
  const folder = getFolder(userId, folderId);
  const row = db.select().from(folderInboxes).where(eq(folderInboxes.folderId, folder.id)).get();
  return row ? `${row.code}@${domain}` : null;
}

/** A new address for the folder, the first or in place of the old one, which stops at once. */
export function makeInboxAddress(userId: number, folderId: number): string | null {
  const domain = inboxDomain();
  if (!domain) return null;
  const folder = getFolder(userId, folderId);
  const code = newCode();
  db.insert(folderInboxes)
    .values({ folderId: folder.id, code })
    .onConflictDoUpdate({ target: folderInboxes.folderId, set: { code, updatedAt: new Date() } })
    .run();
  return `${code}@${domain}`;
}

/**
 * The folder (and its owner) an address belongs to, or null: another domain,
 * an unknown or rotated code. The local part is compared without case, and a
 * `+tag` is ignored, as mail systems do.
 */
export function folderForInboxAddress(
  address: string,
): { folderId: number; userId: number } | null {
  const domain = inboxDomain();
  if (!domain) return null;
  const at = address.lastIndexOf("@");
  if (
    at <= 0 ||
    address
      .slice(at + 1)
      .trim()
      .toLowerCase() !== domain
  )
    return null;
  const code = address.slice(0, at).trim().toLowerCase().split("+")[0] ?? "";
  if (code.length !== CODE_LENGTH) return null;
  return (
    db
      .select({ folderId: folders.id, userId: folders.userId })
      .from(folderInboxes)
      .innerJoin(folders, eq(folders.id, folderInboxes.folderId))
      .where(eq(folderInboxes.code, code))
      .get() ?? null
  );
}
