import { and, count, eq, gt, sql } from "drizzle-orm";
import { securityEvents } from "#db/schema";
import { LIMITS } from "~/modules/plans/limits";
import { REFUSED_MAIL_DAYS } from "~/modules/save-by-email/refused-mail";
import { db } from "~/platform/db.server";

/** Also the order of equal counts: the reasons the sender can most easily do something about first. */
const REASONS = ["other-address", "not-authentic", "too-many", "too-large", "unreadable"] as const;
type Reason = (typeof REASONS)[number];

/** The reasons `save-by-email.server.ts` records, grouped as the sender would understand them. */
function reasonOf(recorded: string): Reason {
  if (recorded === "not from the folder owner's verified address") return "other-address";
  if (recorded.startsWith("not authentic")) return "not-authentic";
  if (recorded === "too many messages to this address") return "too-many";
  if (recorded === "too large to read here" || recorded === "message too large") {
    return "too-large";
  }
  return "unreadable";
}

function said(reason: Reason, ownerEmail: string) {
  switch (reason) {
    case "other-address":
      return `sent from an address other than ${ownerEmail}`;
    case "not-authentic":
      return `not shown by its mail service to come from ${ownerEmail}`;
    case "too-many":
      return `over ${LIMITS.saveByEmail.savesPerFolderPerHour} in an hour`;
    case "too-large":
      return "too large to read";
    case "unreadable":
      return "not readable as an e-mail";
  }
}

/**
 * The mail a folder's address turned away in the last week without answering it (a stranger
 * could be behind it, so only the owner is told, here), in plain words: "1 was sent from an
 * address other than ada@example.com". Null when there was none.
 */
export function refusedMail(
  owner: { id: number; email: string },
  folderId: number,
  now = new Date(),
): { total: number; reasons: string[] } | null {
  const since = new Date(now.getTime() - REFUSED_MAIL_DAYS * 24 * 60 * 60 * 1000);
  const rows = db
    .select({
      reason: sql<string>`json_extract(${securityEvents.details}, '$.reason')`,
      count: count(),
    })
    .from(securityEvents)
    .where(
      and(
        eq(securityEvents.eventType, "inbound_mail_refused"),
        eq(securityEvents.userId, owner.id),
        sql`json_extract(${securityEvents.details}, '$.folderId') = ${folderId}`,
        gt(securityEvents.createdAt, since),
      ),
    )
    .groupBy(sql`1`)
    .all();
  if (rows.length === 0) return null;
  const byReason = new Map<Reason, number>();
  for (const row of rows) {
    const reason = reasonOf(String(row.reason ?? ""));
    byReason.set(reason, (byReason.get(reason) ?? 0) + row.count);
  }
  const reasons = [...byReason]
    .sort(([a, m], [b, n]) => n - m || REASONS.indexOf(a) - REASONS.indexOf(b))
    .map(([reason, n]) => `${n} ${n === 1 ? "was" : "were"} ${said(reason, owner.email)}`);
  return { total: rows.reduce((sum, row) => sum + row.count, 0), reasons };
}
