import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { referrals, uploadDrafts } from "#db/schema";
import { db } from "~/platform/db.server";
import { LIMITS } from "./limits";
import {
  canCreateFolder,
  folderSizeLimit,
  folderStats,
  getUsage,
  invitesAddFolders,
  isApproachingLimits,
  type Usage,
  usageRatios,
} from "./quota.server";

const MB = 1024 * 1024;
/** A file item whose files weigh `fileSizes`; a sent one (`sentAt`) no longer holds them. */
function fileItem(folderId: number, fileSizes: number[], sentAt: Date | null = null) {
  return createItem(db, folderId, { type: "file", fileSizes, sentAt });
}

function refer(referrerUserId: number, count: number, status: "pending" | "completed") {
  for (let i = 0; i < count; i++) {
    const invitee = createUser(db);
    db.insert(referrals)
      .values({
        referrerUserId,
        inviteeUserId: invitee.id,
        referralCode: "CODE",
        status,
        completedAt: status === "completed" ? new Date() : null,
      })
      .run();
  }
}

describe("getUsage", () => {
  test("a new free user: nothing used, the free limits", () => {
    const user = createUser(db);
    expect(getUsage(user.id)).toEqual({
      folderCount: 0,
      totalStorageBytes: 0,
      tier: "free",
      limits: { maxFolders: 5, maxStorageBytes: 50 * MB },
      bonus: { folders: 0, storageBytes: 0, completedReferrals: 0 },
    });
  });

  test("counts folders and sums the files of unsent items only, of this user only", () => {
    const user = createUser(db);
    const other = createUser(db);
    const a = createFolder(db, user.id, { name: "A" });
    const b = createFolder(db, user.id, { name: "B" });
    createFolder(db, user.id, { name: "Empty" });
    fileItem(a.id, [1000, 2000]);
    fileItem(a.id, []);
    fileItem(b.id, [3 * MB]);
    fileItem(b.id, [5 * MB], new Date()); // sent: its files are gone
    const otherFolder = createFolder(db, other.id);
    fileItem(otherFolder.id, [7 * MB]);

    const usage = getUsage(user.id);
    expect(usage.folderCount).toBe(3);
    expect(usage.totalStorageBytes).toBe(3000 + 3 * MB);
    expect(getUsage(other.id)).toMatchObject({ folderCount: 1, totalStorageBytes: 7 * MB });
  });

  test("upload drafts' files count too, except the draft being moved into folders", () => {
    const user = createUser(db);
    fileItem(createFolder(db, user.id).id, [1 * MB]);
    const draft = (id: string, sizes: number[]) =>
      db
        .insert(uploadDrafts)
        .values({
          id,
          userId: user.id,
          type: "file",
          files: sizes.map((size, index) => ({
            key: `${id}-${index}`,
            name: "a.pdf",
            size,
            mimeType: "application/pdf",
          })),
          expiresAt: new Date(Date.now() + 60_000),
        })
        .run();
    draft(`quota-a-${user.id}`, [10 * MB, 5 * MB]);
    draft(`quota-b-${user.id}`, [2 * MB]);
    expect(getUsage(user.id).totalStorageBytes).toBe(18 * MB);
    expect(getUsage(user.id, { exceptDraftId: `quota-a-${user.id}` }).totalStorageBytes).toBe(
      3 * MB,
    );
    expect(getUsage(createUser(db).id).totalStorageBytes).toBe(0);
  });

  test("completed referrals add a folder and 10 MB each; pending ones nothing", () => {
    const user = createUser(db);
    refer(user.id, 2, "completed");
    refer(user.id, 3, "pending");
    expect(getUsage(user.id)).toMatchObject({
      tier: "free",
      limits: { maxFolders: 7, maxStorageBytes: 70 * MB },
      bonus: { folders: 2, storageBytes: 20 * MB, completedReferrals: 2 },
    });
  });

  test("the referral bonus is capped at +5 folders and +50 MB", () => {
    const user = createUser(db);
    refer(user.id, 7, "completed");
    expect(getUsage(user.id)).toMatchObject({
      limits: {
        maxFolders: LIMITS.free.maxFolders + LIMITS.referral.maxBonusFolders,
        maxStorageBytes: 100 * MB,
      },
      bonus: { folders: 5, storageBytes: 50 * MB, completedReferrals: 7 },
    });
  });

  test("an active premium user has no limits", () => {
    const user = createUser(db, { subscriptionTier: "premium", subscriptionStatus: "active" });
    refer(user.id, 1, "completed");
    const usage = getUsage(user.id);
    expect(usage.tier).toBe("premium");
    expect(usage.limits).toEqual({
      maxFolders: Number.POSITIVE_INFINITY,
      maxStorageBytes: Number.POSITIVE_INFINITY,
    });
    expect(usage.bonus.completedReferrals).toBe(1);
  });

  test("a premium subscription that is not active counts as free", () => {
    for (const subscriptionStatus of ["canceled", "past_due", "inactive"]) {
      const user = createUser(db, { subscriptionTier: "premium", subscriptionStatus });
      expect(getUsage(user.id)).toMatchObject({
        tier: "free",
        limits: { maxFolders: 5, maxStorageBytes: 50 * MB },
      });
    }
  });

  test("an unknown user is an error", () => {
    expect(() => getUsage(999_999)).toThrow(/No user/);
  });
});

describe("folderSizeLimit", () => {
  test("20 MB, or 10 MB with any iCloud recipient", () => {
    expect(folderSizeLimit([])).toBe(20 * MB);
    expect(folderSizeLimit([{ email: "a@example.com" }])).toBe(20 * MB);
    expect(folderSizeLimit([{ email: "a@example.com" }, { email: "b@icloud.com" }])).toBe(10 * MB);
    expect(folderSizeLimit([{ email: "b@me.com" }])).toBe(10 * MB);
    expect(folderSizeLimit([{ email: "B@MAC.COM" }])).toBe(10 * MB);
    expect(folderSizeLimit([{ email: "b@iCloud.Com " }])).toBe(10 * MB);
  });

  test("only those exact domains", () => {
    expect(folderSizeLimit([{ email: "b@notme.com" }])).toBe(20 * MB);
    expect(folderSizeLimit([{ email: "me.com@example.com" }])).toBe(20 * MB);
    expect(folderSizeLimit([{ email: "b@icloud.com.example.org" }])).toBe(20 * MB);
    expect(folderSizeLimit([{ email: "not-an-address" }])).toBe(20 * MB);
  });
});

describe("folderStats", () => {
  test("item count and bytes of every folder, unsent items only, empty folders included", () => {
    const user = createUser(db);
    const other = createUser(db);
    const a = createFolder(db, user.id, { name: "A" });
    const b = createFolder(db, user.id, { name: "B" });
    const empty = createFolder(db, user.id, { name: "Empty" });
    const onlySent = createFolder(db, user.id, { name: "Sent" });
    fileItem(a.id, [100, 200, 300]);
    fileItem(a.id, [50]);
    fileItem(a.id, []);
    fileItem(b.id, [MB]);
    fileItem(onlySent.id, [MB], new Date());
    const elsewhere = createFolder(db, other.id);
    fileItem(elsewhere.id, [42]);

    const stats = folderStats(user.id);
    expect(stats).toEqual(
      new Map([
        [a.id, { itemCount: 3, totalSize: 650 }],
        [b.id, { itemCount: 1, totalSize: MB }],
        [empty.id, { itemCount: 0, totalSize: 0 }],
        [onlySent.id, { itemCount: 0, totalSize: 0 }],
      ]),
    );
    expect(folderStats(other.id).get(elsewhere.id)).toEqual({ itemCount: 1, totalSize: 42 });
    expect(folderStats(999_999).size).toBe(0);
  });
});

describe("limit checks", () => {
  const usage = (overrides: Partial<Usage>): Usage => ({
    folderCount: 0,
    totalStorageBytes: 0,
    tier: "free",
    limits: { maxFolders: 5, maxStorageBytes: 50 * MB },
    bonus: { folders: 0, storageBytes: 0, completedReferrals: 0 },
    ...overrides,
  });
  const unlimited = {
    maxFolders: Number.POSITIVE_INFINITY,
    maxStorageBytes: Number.POSITIVE_INFINITY,
  };

  test("canCreateFolder below the folder limit only", () => {
    expect(canCreateFolder(usage({ folderCount: 4 }))).toBe(true);
    expect(canCreateFolder(usage({ folderCount: 5 }))).toBe(false);
    expect(canCreateFolder(usage({ folderCount: 6 }))).toBe(false);
    expect(canCreateFolder(usage({ folderCount: 500, tier: "premium", limits: unlimited }))).toBe(
      true,
    );
  });

  test("invitesAddFolders until the referral bonus is used up, never for premium", () => {
    expect(invitesAddFolders(usage({ folderCount: 5 }))).toBe(true);
    const fullBonus = { folders: 5, storageBytes: 50 * MB, completedReferrals: 7 };
    expect(invitesAddFolders(usage({ folderCount: 10, bonus: fullBonus }))).toBe(false);
    expect(invitesAddFolders(usage({ tier: "premium", limits: unlimited }))).toBe(false);
  });

  test("usageRatios, 0 for an infinite limit", () => {
    expect(usageRatios(usage({ folderCount: 2, totalStorageBytes: 25 * MB }))).toEqual({
      folders: 0.4,
      storage: 0.5,
    });
    expect(
      usageRatios(
        usage({ folderCount: 9, totalStorageBytes: MB, tier: "premium", limits: unlimited }),
      ),
    ).toEqual({ folders: 0, storage: 0 });
  });

  test("isApproachingLimits above 80 % of folders or storage, never for premium", () => {
    expect(isApproachingLimits(usage({ folderCount: 4, totalStorageBytes: 40 * MB }))).toBe(false);
    expect(isApproachingLimits(usage({ folderCount: 5 }))).toBe(true);
    expect(isApproachingLimits(usage({ totalStorageBytes: 40 * MB + 1 }))).toBe(true);
    expect(
      isApproachingLimits(
        usage({ folderCount: 9, totalStorageBytes: 90 * MB, tier: "premium", limits: unlimited }),
      ),
    ).toBe(false);
  });

  test("the referral bonus raises the limits the checks use", () => {
    const user = createUser(db);
    refer(user.id, 1, "completed");
    for (let i = 0; i < 5; i++) createFolder(db, user.id);
    const current = getUsage(user.id);
    expect(current.limits.maxFolders).toBe(6);
    expect(canCreateFolder(current)).toBe(true);
    expect(isApproachingLimits(current)).toBe(true); // 5 of 6
    createFolder(db, user.id);
    expect(canCreateFolder(getUsage(user.id))).toBe(false);
  });
});
