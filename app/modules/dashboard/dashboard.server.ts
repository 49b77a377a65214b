import { isBannerDismissed } from "~/modules/accounts/preferences.server";
import { newAnswerCount } from "~/modules/answers/answers.server";
import type { SessionUser } from "~/modules/auth/session.server";
import { sendingPauseOf } from "~/modules/deliverability/sender-reputation.server";
import { FREQUENCY_LABELS } from "~/modules/folders/folder-validation";
import {
  type Folder,
  FolderNotFoundError,
  listFolders,
  recipientsOf,
} from "~/modules/folders/folders.server";
import { deliveryLabels, scheduleLine } from "~/modules/folders/schedule.server";
import { activeSkip } from "~/modules/folders/skip.server";
import { type ListedItem, listItems } from "~/modules/items/items.server";
import { missingFileReason } from "~/modules/items/missing-file";
import type { WaitingFor } from "~/modules/items/needs-note";
import { needsNote } from "~/modules/items/needs-note";
import { waitingByFolder } from "~/modules/items/needs-note.server";
import {
  folderSizeLimit,
  folderStats,
  getUsage,
  isApproachingLimits,
} from "~/modules/plans/quota.server";
import { everyoneLeftLine, nextIssueLine } from "~/modules/recipients/next-issue-line";
import {
  type NextIssueReach,
  nextIssueReach,
  unsubscribedCounts,
} from "~/modules/recipients/recipients.server";
import { inboxAddress, inboxDomain } from "~/modules/save-by-email/inbox-addresses.server";
import { refusedMail } from "~/modules/save-by-email/refused-mail.server";
import { type SendStatus, sendStatuses } from "~/modules/sending/send-status.server";

/**
 * Everything the dashboard shows, in a constant number of queries whatever
 * the number of folders: the folders, their sizes in one grouped query, their
 * items waiting for a note in another, their unsubscribed recipients in
 * another, and the usage.
 */
/**
 * The folder's recipients in a line: one in full, several as a count, none
 * (or none left: every one unsubscribed) as "No active recipients" (docs/product-rules.md, Folders and items).
 */
function recipientLabel(recipients: { name: string; email: string }[], reach: NextIssueReach) {
  if (recipients.length !== 1 || reach.missing.length > 0) return nextIssueLine(reach);
  const [only] = recipients;
  return only!.name && only!.name !== "recipient" ? `${only!.name} <${only!.email}>` : only!.email;
}

function skippedLabel(folder: Folder, label: (nextSend: Date | null) => string) {
  const skipped = activeSkip(folder);
  return skipped ? label(skipped) : null;
}

function folderSummary(
  folder: Folder,
  stats: { itemCount: number; totalSize: number },
  waiting: WaitingFor[],
  unsubscribedCount: number,
  reach: NextIssueReach,
  nextDeliveryLabel: (nextSend: Date | null) => string,
  sendStatus: SendStatus | null,
) {
  const recipients = recipientsOf(folder);
  const maxSize = folderSizeLimit(recipients);
  return {
    id: folder.id,
    name: folder.name,
    recipientLabel: recipientLabel(recipients, reach),
    /**
     * A folder card's recipients line: who will get the next issue, a count for every folder,
     * one recipient included, so the cards read alike (docs/decisions/0145-folder-cards-read-the-same.md,
     * docs/decisions/0210-counts-that-are-true.md).
     */
    recipientCountLabel: nextIssueLine(reach),
    isPaused: folder.isPaused,
    pauseReason: folder.pauseReason,
    isUnsubscribed: folder.isUnsubscribed,
    /**
     * "Dad unsubscribed" once every recipient left: the card and the folder say so, with the one
     * next step (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
     */
    everyoneLeft: folder.isUnsubscribed ? everyoneLeftLine(recipients) : null,
    unsubscribedCount,
    frequencyLabel: folder.isPaused ? "Paused" : FREQUENCY_LABELS[folder.frequency],
    nextLabel: folder.isPaused ? "Paused" : nextDeliveryLabel(folder.nextSendAt),
    /** The delivery the sender skipped, while it is ahead (docs/decisions/0213-skip-the-next-issue.md). */
    skippedLabel: skippedLabel(folder, nextDeliveryLabel),
    scheduleLine: scheduleLine(folder),
    /** The sender's few words for the next issue (docs/decisions/0212-a-note-for-one-issue.md). */
    issueNote: folder.issueNote,
    itemCount: stats.itemCount,
    /** What each item the next send leaves behind waits for (docs/decisions/0252-what-waits-is-named-before-a-send.md). */
    waiting,
    totalSize: stats.totalSize,
    maxSize,
    /** Its latest send, while copies wait or once it failed (docs/decisions/0243-the-sender-sees-what-the-send-is-doing.md). */
    sendStatus,
  };
}

export type FolderSummary = ReturnType<typeof folderSummary>;

/**
 * What the item list shows, and only what the item has: the page carries
 * this for 50 items in its data, so an absent field is left out rather than
 * sent as null or []. No storage paths beyond the keys the file route checks.
 */
function itemView(item: ListedItem) {
  const files = item.filePaths.map((key, index) => ({
    key,
    thumbnailKey: item.thumbnailPaths[index] || null,
    name: item.fileNames[index] ?? "file",
    size: item.fileSizes[index] ?? 0,
  }));
  const expectation = item.responseExpectation === "na" ? null : item.responseExpectation;
  /** Why the last send left it behind (docs/decisions/0242-a-missing-file-stays-behind-with-its-item.md). */
  const fileMissing = missingFileReason(item);
  return {
    id: item.id,
    type: item.type,
    title: item.title,
    ...(item.urls.length > 0 ? { urls: item.urls } : {}),
    ...(item.note ? { note: item.note } : {}),
    ...(item.addComment && item.commentText ? { commentText: item.commentText } : {}),
    ...(item.askQuestion && item.questionText ? { questionText: item.questionText } : {}),
    ...(expectation ? { responseExpectation: expectation } : {}),
    ...(files.length > 0 ? { files } : {}),
    ...(item.previewStatus === "ready"
      ? {
          preview: {
            title: item.previewTitle,
            description: item.previewDescription,
            siteName: item.previewSiteName,
            imageKey: item.previewImageKey,
          },
        }
      : {}),
    ...(item.previewStatus === "pending" ? { previewPending: true as const } : {}),
    ...(needsNote(item) ? { needsNote: true as const } : {}),
    ...(item.videoStatus === "preparing" ? { videoPreparing: item.videoProgress } : {}),
    ...(item.videoStatus === "failed" ? { videoRefused: item.videoError ?? "" } : {}),
    ...(fileMissing ? { fileMissing } : {}),
  };
}

export type ItemView = ReturnType<typeof itemView>;

export function loadDashboard(user: SessionUser, selectedId: number | null, page = 1) {
  const now = new Date();
  const nextDeliveryLabel = deliveryLabels(user.timeZone, now);
  const sending = sendStatuses(user.id, user.timeZone, now);
  const folders = listFolders(user.id);
  const stats = folderStats(user.id);
  const unsubscribed = unsubscribedCounts(folders);
  const reach = nextIssueReach(folders);
  const waiting = waitingByFolder(user.id);
  const summaries = folders.map((folder) =>
    folderSummary(
      folder,
      stats.get(folder.id) ?? { itemCount: 0, totalSize: 0 },
      waiting.get(folder.id) ?? [],
      unsubscribed.get(folder.id) ?? 0,
      reach.get(folder.id)!,
      nextDeliveryLabel,
      sending.get(folder.id) ?? null,
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
    sendingPause: sendingPauseOf(user),
    inbox:
      selected && inboxDomain()
        ? {
            address: inboxAddress(user.id, selected.id),
            refused: refusedMail(user, selected.id),
          }
        : null,
    /** Recipients' answers since the sender last opened Save, where they are shown. */
    newAnswers: newAnswerCount(user.id),
  };
}

export type DashboardData = ReturnType<typeof loadDashboard>;

/**
 * The dashboard as a page draws it, with this browser's banner choice: for
 * the folder page and for every dialog route drawn over the dashboard.
 */
export async function loadDashboardPage(
  request: Request,
  user: SessionUser,
  selectedId: number | null = null,
  page = 1,
) {
  return {
    ...loadDashboard(user, selectedId, page),
    bannerDismissed: await isBannerDismissed(request, user),
  };
}
