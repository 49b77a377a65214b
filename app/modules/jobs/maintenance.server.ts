import { and, gt, isNotNull, isNull, lt, or } from "drizzle-orm";
import {
  contentItems,
  csrfTokens,
  securityEvents,
  sessions,
  undoLinkUses,
  users,
} from "#db/schema";
import { itemFileKeys, removeOrphanFiles } from "~/modules/files/stored-files.server";
import { purgeExpiredDeletions, undoableFileKeys } from "~/modules/items/item-undo.server";
import { archiveFileCutoff } from "~/modules/plans/limits";
import { pruneAnalyticsDetails } from "~/modules/sending/delivery-analytics.server";
import { draftFileKeys } from "~/modules/uploads/upload-drafts.server";
import { db } from "~/platform/db.server";
import { pruneOneTimeKeys } from "~/platform/one-time-keys.server";

/**
 * Deletes stored files that no unsent content item refers to (left by a crash
 * between storing a file and writing its row, or a failed delete), and the
 * files of sent items once their archive retention (ARCHIVE_FILE_RETENTION_DAYS)
 * is over: that is when a sent item's files go. Files younger than an hour are kept: their upload may still
 * be writing its row.
 */
export async function sweepOrphanFiles() {
  await purgeExpiredDeletions();
  const referenced = new Set<string>();
  for (const item of db
    .select({
      filePaths: contentItems.filePaths,
      thumbnailPaths: contentItems.thumbnailPaths,
      previewImageKey: contentItems.previewImageKey,
    })
    .from(contentItems)
    .where(or(isNull(contentItems.sentAt), gt(contentItems.sentAt, archiveFileCutoff(new Date()))))
    .all()) {
    for (const key of itemFileKeys(item)) referenced.add(key);
  }
  for (const key of draftFileKeys()) referenced.add(key);
  for (const key of undoableFileKeys()) referenced.add(key);
  return removeOrphanFiles(referenced);
}

/** How long `security_events` rows are kept: a quarter covers any review of an incident. */
export const SECURITY_EVENT_RETENTION_DAYS = 90;

/**
 * The nightly pruning of what only grows: security events past their
 * retention, expired sessions and CSRF tokens, and e-mailed reset and
 * verification tokens past their expiry (docs/decisions/0054-security-limits.md),
 * the uses of undo links that have expired anyway, one-time keys past their
 * day, and the user agents of opens past the analytics retention.
 */
export function pruneExpiredRecords(now = new Date()) {
  const eventsBefore = new Date(now.getTime() - SECURITY_EVENT_RETENTION_DAYS * 86_400_000);
  const securityEventsRemoved = db
    .delete(securityEvents)
    .where(lt(securityEvents.createdAt, eventsBefore))
    .run().changes;
  const sessionsRemoved = db.delete(sessions).where(lt(sessions.expire, now)).run().changes;
  pruneAnalyticsDetails(now);
  db.delete(csrfTokens).where(lt(csrfTokens.expiresAt, now)).run();
  db.delete(undoLinkUses).where(lt(undoLinkUses.expiresAt, now)).run();
  pruneOneTimeKeys(now);
  db.update(users)
    .set({ passwordResetToken: null, passwordResetExpiresAt: null })
    .where(and(isNotNull(users.passwordResetToken), lt(users.passwordResetExpiresAt, now)))
    .run();
  db.update(users)
    .set({ emailVerificationToken: null, emailVerificationExpiresAt: null })
    .where(and(isNotNull(users.emailVerificationToken), lt(users.emailVerificationExpiresAt, now)))
    .run();
  return { securityEventsRemoved, sessionsRemoved };
}
