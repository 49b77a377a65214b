import { appendRecipientChoice, type RecipientChoice } from "#db/restore";
import { env } from "~/platform/env.server";

/**
 * Records an unsubscribe or re-subscribe in the backup directory's journal
 * before the database commits it, so a restore from an older backup reapplies
 * it (scripts/db-restore.ts) and never mails someone who opted out since.
 */
export function recordRecipientChoice(choice: Omit<RecipientChoice, "at"> & { at: Date }) {
  appendRecipientChoice(env.BACKUP_DIR, { ...choice, at: choice.at.toISOString() });
}
