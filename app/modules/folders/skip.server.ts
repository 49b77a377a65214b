import { and, eq } from "drizzle-orm";
import { folders } from "#db/schema";
import { db, writeTransaction } from "~/platform/db.server";
import { RuleError } from "~/platform/errors.server";
import { type Folder, getFolder, timeZoneOf } from "./folders.server";
import { nextDeliveryLabel, nextSendAt } from "./schedule.server";

/**
 * Skip the next issue, and undo it (docs/decisions/0213-skip-the-next-issue.md).
 * The skipped delivery is kept in `skippedSendAt`; `nextSendAt` (schedule.server.ts)
 * passes over it, so the folder's clock, which alone decides what the scheduler
 * opens, moves to the delivery after it, still at 00:01 in the owner's zone.
 * An occurrence already due is the scheduler's: it can be neither skipped nor
 * brought back, so a skip never races a send.
 */
export class SkipRuleError extends RuleError {}

/** The skipped delivery while it is still ahead, else null. */
export function activeSkip(folder: Pick<Folder, "skippedSendAt" | "isPaused">, now = new Date()) {
  if (folder.isPaused || !folder.skippedSendAt) return null;
  return folder.skippedSendAt.getTime() > now.getTime() ? folder.skippedSendAt : null;
}

function moveClock(folder: Folder, values: Pick<Folder, "nextSendAt" | "skippedSendAt">) {
  return db
    .update(folders)
    .set(values)
    .where(and(eq(folders.id, folder.id), eq(folders.userId, folder.userId)))
    .returning()
    .get()!;
}

export function skipNextIssue(userId: number, folderId: number, now = new Date()) {
  return writeTransaction(() => {
    const folder = getFolder(userId, folderId);
    if (folder.isPaused || folder.isUnsubscribed || !folder.nextSendAt) {
      throw new SkipRuleError("This folder is not being delivered, so there is no issue to skip.");
    }
    if (activeSkip(folder, now)) {
      throw new SkipRuleError("The next issue is skipped already. Undo the skip to change it.");
    }
    if (folder.nextSendAt.getTime() <= now.getTime()) {
      throw new SkipRuleError("This issue is being sent now, so it can no longer be skipped.");
    }
    const timeZone = timeZoneOf(userId);
    const skipped = folder.nextSendAt;
    const moved = moveClock(folder, {
      skippedSendAt: skipped,
      // The schedule's delivery after the skipped one (the search starts just before it).
      nextSendAt: nextSendAt(
        { ...folder, skippedSendAt: skipped },
        timeZone,
        new Date(skipped.getTime() - 1),
        folder.lastSentAt,
      ),
    });
    return { folder: moved, ...labels(moved, skipped, timeZone, now) };
  });
}

export function undoSkip(userId: number, folderId: number, now = new Date()) {
  return writeTransaction(() => {
    const folder = getFolder(userId, folderId);
    const skipped = activeSkip(folder, now);
    if (!skipped) {
      throw new SkipRuleError("There is no skipped issue to bring back: its day has passed.");
    }
    // Still ahead and still a delivery of the schedule (an edit that moved it ended the skip).
    const back = moveClock(folder, { skippedSendAt: null, nextSendAt: skipped });
    const timeZone = timeZoneOf(userId);
    return { folder: back, ...labels(back, skipped, timeZone, now) };
  });
}

function labels(folder: Folder, skipped: Date, timeZone: string, now: Date) {
  return {
    skippedLabel: nextDeliveryLabel(skipped, timeZone, now),
    nextLabel: nextDeliveryLabel(folder.nextSendAt, timeZone, now),
  };
}
