import { and, eq, isNull, sql } from "drizzle-orm";
import { contentItems, folders, uploadDrafts } from "#db/schema";
import { prepareOnce, prepareSqlOnce } from "~/platform/db.server";
import { LIMITS } from "./limits";

/**
 * Usage and limits (docs/product-rules.md, "Tiers and limits"): the one place
 * every check that counts folders or bytes goes through. Each function runs a
 * fixed number of queries, whatever the number of folders. Inside
 * `writeTransaction` they read through the same connection, so a check and
 * the write it guards see the same data.
 */

export type Tier = "free" | "premium";

export type Usage = {
  folderCount: number;
  /** Bytes of the files in the user's unsent items and upload drafts. */
  totalStorageBytes: number;
  tier: Tier;
  /** Infinity for premium. */
  limits: { maxFolders: number; maxStorageBytes: number };
  /** What completed referrals add to the free limits (capped). */
  bonus: { folders: number; storageBytes: number; completedReferrals: number };
};

/**
 * Bytes of one content item's files: the sum of its `file_sizes` JSON array,
 * plus a link preview's picture (sent with the folder, so it counts).
 * Written with table names, not drizzle columns: drizzle leaves columns
 * unqualified in a one-table select, which is ambiguous inside a subquery.
 */
const itemBytes = sql.raw(
  "((select coalesce(sum(je.value), 0) from json_each(content_items.file_sizes) as je) + content_items.preview_image_size)",
);

export function isPremium(user: { subscriptionTier: string; subscriptionStatus: string }) {
  return user.subscriptionTier === "premium" && user.subscriptionStatus === "active";
}

export function referralBonus(completedReferrals: number) {
  const { bonusFoldersEach, bonusStorageBytesEach, maxBonusFolders, maxBonusStorageBytes } =
    LIMITS.referral;
  return {
    folders: Math.min(completedReferrals * bonusFoldersEach, maxBonusFolders),
    storageBytes: Math.min(completedReferrals * bonusStorageBytesEach, maxBonusStorageBytes),
    completedReferrals,
  };
}

/** Bytes of one upload draft's files: the sum of the `size` of each entry of its `files` JSON. */
const draftBytes = sql.raw(
  "(select coalesce(sum(json_extract(je.value, '$.size')), 0) from json_each(upload_drafts.files) as je)",
);

const usageQuery = prepareSqlOnce<{
  subscriptionTier: string;
  subscriptionStatus: string;
  folderCount: number;
  totalStorageBytes: number;
  completedReferrals: number;
}>(sql`
    select
      users.subscription_tier as subscriptionTier,
      users.subscription_status as subscriptionStatus,
      (select count(*) from folders where folders.user_id = users.id) as folderCount,
      (select coalesce(sum(${itemBytes}), 0)
         from content_items join folders on folders.id = content_items.folder_id
        where folders.user_id = users.id and content_items.sent_at is null)
      + (select coalesce(sum(${draftBytes}), 0) from ${uploadDrafts}
          where upload_drafts.user_id = users.id
            and upload_drafts.id != ${sql.placeholder("exceptDraftId")}) as totalStorageBytes,
      (select count(*) from referrals
        where referrals.referrer_user_id = users.id and referrals.status = 'completed')
        as completedReferrals
    from users where users.id = ${sql.placeholder("userId")}`);

/**
 * One query: the user's tier, folder count, stored bytes and completed
 * referrals. Upload drafts hold stored files too, so they count against the
 * storage limit (docs/decisions/0044-unverified-accounts.md); `exceptDraftId`
 * leaves out the draft whose files are being moved into folders, so they are
 * not counted twice.
 */
export function getUsage(userId: number, { exceptDraftId = "" } = {}): Usage {
  const row = usageQuery.get({ userId, exceptDraftId });
  if (!row) throw new Error(`No user with id ${userId}`);

  const tier: Tier = isPremium(row) ? "premium" : "free";
  const bonus = referralBonus(row.completedReferrals);
  const limits =
    tier === "premium"
      ? { maxFolders: LIMITS.premium.maxFolders, maxStorageBytes: LIMITS.premium.maxStorageBytes }
      : {
          maxFolders: LIMITS.free.maxFolders + bonus.folders,
          maxStorageBytes: LIMITS.free.maxStorageBytes + bonus.storageBytes,
        };
  return {
    folderCount: row.folderCount,
    totalStorageBytes: row.totalStorageBytes,
    tier,
    limits,
    bonus,
  };
}

/** The domain of an address, lower-cased ("" when there is no @). */
function domainOf(email: string) {
  const at = email.lastIndexOf("@");
  return at < 0
    ? ""
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

export function isIcloudAddress(email: string) {
  return (LIMITS.folder.icloudDomains as readonly string[]).includes(domainOf(email));
}

/** A folder's size cap: 20 MB, or 10 MB when any recipient is at iCloud (icloud.com, me.com, mac.com). */
export function folderSizeLimit(recipients: readonly { email: string }[]): number {
  return recipients.some((recipient) => isIcloudAddress(recipient.email))
    ? LIMITS.folder.icloudMaxSizeBytes
    : LIMITS.folder.maxSizeBytes;
}

export type FolderStats = { itemCount: number; totalSize: number };

const folderStatsQuery = prepareOnce((database) =>
  database
    .select({
      folderId: folders.id,
      itemCount: sql<number>`count(${contentItems.id})`,
      totalSize: sql<number>`coalesce(sum(${itemBytes}), 0)`,
    })
    .from(folders)
    .leftJoin(contentItems, and(eq(contentItems.folderId, folders.id), isNull(contentItems.sentAt)))
    .where(eq(folders.userId, sql.placeholder("userId")))
    .groupBy(folders.id)
    .prepare(),
);

/** Unsent item count and bytes of every folder of the user, in one query (empty folders included). */
export function folderStats(userId: number): Map<number, FolderStats> {
  const rows = folderStatsQuery().all({ userId });
  return new Map(
    rows.map((row) => [row.folderId, { itemCount: row.itemCount, totalSize: row.totalSize }]),
  );
}

export function canCreateFolder(usage: Usage) {
  return usage.folderCount < usage.limits.maxFolders;
}

/** Whether inviting friends can still raise a free sender's folder limit (the bonus is capped). */
export function invitesAddFolders(usage: Usage) {
  return usage.tier === "free" && usage.bonus.folders < LIMITS.referral.maxBonusFolders;
}

/** Share of each limit in use (0 when the limit is infinite; above 1 when over the limit). */
export function usageRatios(usage: Usage) {
  return {
    folders: ratio(usage.folderCount, usage.limits.maxFolders),
    storage: ratio(usage.totalStorageBytes, usage.limits.maxStorageBytes),
  };
}

/** A free user above the warning share (80 %) of their folders or storage. */
export function isApproachingLimits(usage: Usage) {
  if (usage.tier === "premium") return false;
  const ratios = usageRatios(usage);
  return ratios.folders > LIMITS.usageWarningRatio || ratios.storage > LIMITS.usageWarningRatio;
}

function ratio(used: number, limit: number) {
  if (!Number.isFinite(limit)) return 0;
  if (limit <= 0) return used > 0 ? Number.POSITIVE_INFINITY : 0;
  return used / limit;
}
