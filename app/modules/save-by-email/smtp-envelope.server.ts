import { eq } from "drizzle-orm";
import { users } from "#db/schema";
import { LIMITS } from "~/modules/plans/limits";
import { db } from "~/platform/db.server";
import { canonicalEmail } from "~/platform/email-address";
import { consumeRateLimit, peekRateLimit } from "~/platform/rate-limit.server";
import { folderForInboxAddress } from "./inbox-addresses.server";
import { SAVES_PER_FOLDER } from "./save-by-email.server";

/**
 * Who may hand the SMTP receiver a message for a folder's address, judged at
 * RCPT TO from the envelope alone, before a byte of the message is read
 * (docs/decisions/0177-smtp-envelope-judged-at-rcpt.md). A 550 is final: the
 * address is unknown, or the envelope sender is not the folder's owner (a
 * bounce or an automatic reply included). A 452 is "try later": a limit of
 * this hour, which the sending server's retries outlast.
 */
export type SmtpRefusal = { responseCode: 452 | 550; message: string };

/** Recipients one client may name in an hour, known or not: bounds guessing addresses and owners. */
export const RECIPIENTS_PER_CLIENT = {
  name: "smtp:client-rcpt",
  points: 60,
  durationSeconds: 60 * 60,
};

/**
 * Messages that may reach DATA for one folder's address in an hour. The saves
 * limit counts only authentic mail; this one counts what claims to be, so
 * mail forged in the owner's name cannot fill the spool without end.
 */
export const MESSAGES_PER_ADDRESS = {
  name: "smtp:address",
  points: 2 * LIMITS.saveByEmail.savesPerFolderPerHour,
  durationSeconds: 60 * 60,
};

/**
 * Why an envelope sender may not send to a folder whose owner has `owner`'s
 * address, or null if it may. MAIL FROM:<> (a bounce, an automatic reply)
 * never: a folder's address sends nothing, so nothing can bounce back to it.
 */
export function envelopeSenderProblem(
  mailFrom: string,
  owner: { email: string; emailVerified: boolean },
): string | null {
  if (!mailFrom) return "This address takes no bounces or automatic replies";
  const sender = canonicalEmail(mailFrom);
  if (!owner.emailVerified || !sender || sender !== canonicalEmail(owner.email)) {
    return "This address takes mail from its owner only";
  }
  return null;
}

/** Why `rcpt` is refused to `client` sending as `mailFrom` (empty for <>), or null. */
export async function recipientRefusal(
  rcpt: string,
  mailFrom: string,
  client: string,
): Promise<SmtpRefusal | null> {
  if (!(await consumeRateLimit(RECIPIENTS_PER_CLIENT, client)).allowed) {
    return { responseCode: 452, message: "Too many recipients from your server, try later" };
  }
  const folder = folderForInboxAddress(rcpt);
  if (!folder) return { responseCode: 550, message: "No such mailbox here" };
  const owner = db
    .select({ email: users.email, emailVerified: users.emailVerified })
    .from(users)
    .where(eq(users.id, folder.userId))
    .get();
  const problem = owner
    ? envelopeSenderProblem(mailFrom, owner)
    : "This address takes mail from its owner only";
  if (problem) return { responseCode: 550, message: problem };
  const key = String(folder.folderId);
  if (!(await peekRateLimit(SAVES_PER_FOLDER, key)).allowed) {
    return { responseCode: 452, message: "This folder has saved all it may this hour, try later" };
  }
  if (!(await consumeRateLimit(MESSAGES_PER_ADDRESS, key)).allowed) {
    return { responseCode: 452, message: "Too many messages to this address, try later" };
  }
  return null;
}
