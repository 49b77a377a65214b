import { and, count, eq, gt, inArray } from "drizzle-orm";
import { itemAnswers, users } from "#db/schema";
import { db } from "~/platform/db.server";

/**
 * Per issue among `ledgerIds` (the sender's), how many of its answers arrived
 * since the sender last opened the Save tab: read before that visit marks
 * them seen, so the visit that shows them can say which are new
 * (docs/decisions/0164-answers-seen-on-the-save-tab.md).
 */
export function newAnswersByIssue(userId: number, ledgerIds: number[]) {
  const fresh = new Map<number, number>();
  if (ledgerIds.length === 0) return fresh;
  const seen = db
    .select({ at: users.answersSeenAt })
    .from(users)
    .where(eq(users.id, userId))
    .get()?.at;
  const rows = db
    .select({ ledgerId: itemAnswers.ledgerId, n: count() })
    .from(itemAnswers)
    .where(
      and(
        eq(itemAnswers.userId, userId),
        inArray(itemAnswers.ledgerId, ledgerIds),
        seen ? gt(itemAnswers.createdAt, seen) : undefined,
      ),
    )
    .groupBy(itemAnswers.ledgerId)
    .all();
  for (const row of rows) fresh.set(row.ledgerId, row.n);
  return fresh;
}
