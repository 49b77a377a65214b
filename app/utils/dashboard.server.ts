import { FREQUENCY_LABELS } from "~/utils/folder-validation";
import {
  type Folder,
  FolderNotFoundError,
  listFolders,
  recipientsOf,
} from "~/utils/folders.server";
import { type Item, listItems } from "~/utils/items.server";
import { folderSizeLimit, folderStats, getUsage, isApproachingLimits } from "~/utils/quota.server";
import { unsubscribedCounts } from "~/utils/recipients.server";
import { nextDeliveryLabel, scheduleLine } from "~/utils/schedule.server";
import type { SessionUser } from "~/utils/session.server";

/**
 * Everything the dashboard shows, in a constant number of queries whatever
 * the number of folders: the folders, their sizes in one grouped query, their
 * unsubscribed recipients in another, and the usage.
 */
function folderSummary(
  folder: Folder,
  stats: { itemCount: number; totalSize: number },
  unsubscribedCount: number,
  timeZone: string,
  now: Date,
) {
  const recipients = recipientsOf(folder);
  const maxSize = folderSizeLimit(recipients);
  return {
    id: folder.id,
    name: folder.name,
    recipients,
    isPaused: folder.isPaused,
    pauseReason: folder.pauseReason,
    isUnsubscribed: folder.isUnsubscribed,
    unsubscribedCount,
    frequencyLabel: folder.isPaused ? "Paused" : FREQUENCY_LABELS[folder.frequency],
    nextLabel: folder.isPaused ? "Paused" : nextDeliveryLabel(folder.nextSendAt, timeZone, now),
    nextSendAt: folder.nextSendAt?.toISOString() ?? null,
    scheduleLine: scheduleLine(folder),
    itemCount: stats.itemCount,
    totalSize: stats.totalSize,
    maxSize,
  };
}

export type FolderSummary = ReturnType<typeof folderSummary>;

/** What the item list shows: no storage paths beyond the keys the file route checks. */
function itemView(item: Item) {
  return {
    id: item.id,
    type: item.type,
    title: item.title,
    urls: item.urls,
    note: item.note,
    commentText: item.addComment ? item.commentText : null,
    questionText: item.askQuestion ? item.questionText : null,
    responseExpectation: item.responseExpectation,
    files: item.filePaths.map((key, index) => ({
      key,
      thumbnailKey: item.thumbnailPaths[index] || null,
      name: item.fileNames[index] ?? "file",
      size: item.fileSizes[index] ?? 0,
    })),
  };
}

export type ItemView = ReturnType<typeof itemView>;

export function loadDashboard(user: SessionUser, selectedId: number | null, page = 1) {
  const now = new Date();
  const folders = listFolders(user.id);
  const stats = folderStats(user.id);
  const unsubscribed = unsubscribedCounts(user.id);
  const summaries = folders.map((folder) =>
    folderSummary(
      folder,
      stats.get(folder.id) ?? { itemCount: 0, totalSize: 0 },
      unsubscribed.get(folder.id) ?? 0,
      user.timeZone,
      now,
    ),
  );
  // The user's own folders are all in the list: an id not among them is someone else's, or gone.
  const selected =
    selectedId === null
      ? (summaries[0] ?? null)
      : (summaries.find((folder) => folder.id === selectedId) ?? null);
  if (selectedId !== null && !selected) throw new FolderNotFoundError();
  const usage = getUsage(user.id);
  const content = selected ? listItems(selected.id, page) : null;
  return {
    folders: summaries,
    selected,
    items: content?.items.map(itemView) ?? [],
    pagination: content?.pagination ?? null,
    usage: {
      folderCount: usage.folderCount,
      totalStorageBytes: usage.totalStorageBytes,
      maxFolders: Number.isFinite(usage.limits.maxFolders) ? usage.limits.maxFolders : null,
      maxStorageBytes: Number.isFinite(usage.limits.maxStorageBytes)
        ? usage.limits.maxStorageBytes
        : null,
      tier: usage.tier,
      approachingLimits: isApproachingLimits(usage),
    },
    emailVerified: user.emailVerified,
  };
}

export type DashboardData = ReturnType<typeof loadDashboard>;
