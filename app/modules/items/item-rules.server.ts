import { and, eq, isNull } from "drizzle-orm";
import { contentItems, folders } from "#db/schema";
import type { ContentItem } from "#db/types";
import { type Folder, folderContentSize, recipientsOf } from "~/modules/folders/folders.server";
import { folderSizeLimit, getUsage } from "~/modules/plans/quota.server";
import { db } from "~/platform/db.server";
import { NotFoundError, RuleError } from "~/platform/errors.server";

/**
 * What every change to an item checks first: that it is the owner's and still
 * unsent, and that its bytes fit. Saving (app/modules/items/items.server.ts)
 * and link previews (app/modules/items/link-previews.server.ts) both use it,
 * so neither imports the other.
 */
export class ItemNotFoundError extends NotFoundError {}

export type QuotaErrorCode = "STORAGE_QUOTA_EXCEEDED" | "FOLDER_SIZE_EXCEEDED";

/** Refused because the upload would not fit: carries the figures (docs/product-rules.md, Pages and messages). */
export class QuotaExceededError extends RuleError {
  constructor(
    readonly code: QuotaErrorCode,
    message: string,
    readonly details: {
      currentUsage: number;
      limit: number;
      uploadSize: number;
      folderCount: number;
    },
  ) {
    super(message);
  }
}

export class ItemRuleError extends RuleError {}

export function getItem(userId: number, itemId: number): { item: ContentItem; folder: Folder } {
  const row = Number.isSafeInteger(itemId)
    ? db
        .select({ item: contentItems, folder: folders })
        .from(contentItems)
        .innerJoin(folders, eq(folders.id, contentItems.folderId))
        .where(
          and(eq(contentItems.id, itemId), eq(folders.userId, userId), isNull(contentItems.sentAt)),
        )
        .get()
    : undefined;
  if (!row) throw new ItemNotFoundError();
  return row;
}

const MB = 1024 * 1024;
const inMb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/**
 * Checks that `uploadSize` more bytes fit the account's storage (items and
 * upload drafts; `exceptDraftId` leaves out a draft whose files these are).
 * Called inside the write transaction that stores the row, so two uploads at
 * once are checked one after the other and cannot together pass a limit.
 */
export function assertStorageFits(
  userId: number,
  uploadSize: number,
  options: { exceptDraftId?: string } = {},
) {
  const usage = getUsage(userId, options);
  const accountAfter = usage.totalStorageBytes + uploadSize;
  if (accountAfter > usage.limits.maxStorageBytes) {
    throw new QuotaExceededError(
      "STORAGE_QUOTA_EXCEEDED",
      `You're using ${inMb(usage.totalStorageBytes)} of your ${inMb(usage.limits.maxStorageBytes)} across ${usage.folderCount} folders, and this upload needs ${inMb(uploadSize)} more. Use Send Now on a full folder to free space, or upgrade to Premium.`,
      {
        currentUsage: usage.totalStorageBytes,
        limit: usage.limits.maxStorageBytes,
        uploadSize,
        folderCount: usage.folderCount,
      },
    );
  }
  return usage;
}

/** Checks that `uploadSize` more bytes fit the folder and the account (see assertStorageFits). */
export function assertFits(
  userId: number,
  folder: Folder,
  uploadSize: number,
  options: { exceptDraftId?: string; emailBytes?: number } = {},
) {
  const usage = assertStorageFits(userId, uploadSize, options);
  const current = folderContentSize(folder.id);
  const limit = folderSizeLimit(recipientsOf(folder));
  // What the folder's e-mail will carry of the upload (a video: its poster, not the clip).
  const emailBytes = options.emailBytes ?? uploadSize;
  if (current + emailBytes > limit) {
    throw new QuotaExceededError(
      "FOLDER_SIZE_EXCEEDED",
      `This folder holds ${inMb(current)} of its ${inMb(limit)}, and this upload needs ${inMb(emailBytes)} more. Use Send Now to deliver it and start fresh.`,
      { currentUsage: current, limit, uploadSize: emailBytes, folderCount: usage.folderCount },
    );
  }
}
