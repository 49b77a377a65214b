import type { StoredUpload } from "~/modules/files/upload-kinds";
import { onceForKey } from "~/platform/one-time-keys.server";
import { withLinkTitle } from "./item-titles.server";
import type { ItemInput } from "./item-validation";
import {
  createTextItem,
  createUploadItem,
  type Item,
  itemAddress,
  updateTextItem,
  updateUploadItem,
} from "./items.server";
import { requestVideoPass } from "./video-preparation-queue.server";

/**
 * A new item in a folder; a form's one-time key makes a repeat of the same add save nothing.
 * `fromDraftId`: the draft that holds its files (kept from a refused form), whose storage is
 * theirs, not counted twice.
 */
export type NewItem = { folderId: number; oneTimeKey: string | null; fromDraftId?: string };
/** An item created without a one-time key (the API), or an existing item, edited. */
export type ItemTarget = { folderId: number } | { itemId: number };

/** Where the save leads, and the item; null when the one-time key found the add saved before. */
export type SavedItem = { location: string; item: Item | null };

/**
 * Saves one item from the add sheet, the edit sheet or the API: a link without a title gets
 * the page's (docs/decisions/0199-the-app-fills-what-it-knows.md), then it is created or
 * updated by its type; an upload's new `files` are added to it, and a new video is queued for
 * preparation. Throws the items' RuleErrors and NotFoundErrors for the caller to answer.
 */
export async function saveItem(
  userId: number,
  target: NewItem,
  input: ItemInput,
  files?: StoredUpload[],
): Promise<SavedItem>;
export async function saveItem(
  userId: number,
  target: ItemTarget,
  input: ItemInput,
  files?: StoredUpload[],
): Promise<{ location: string; item: Item }>;
export async function saveItem(
  userId: number,
  target: NewItem | ItemTarget,
  input: ItemInput,
  files: StoredUpload[] = [],
): Promise<SavedItem> {
  const value = await withLinkTitle(userId, input);
  if ("itemId" in target) {
    const item =
      value.type === "link" || value.type === "musing"
        ? updateTextItem(userId, target.itemId, value)
        : updateUploadItem(userId, target.itemId, value, files);
    return { location: itemAddress(item), item };
  }
  let item: Item | null = null;
  const key = "oneTimeKey" in target ? target.oneTimeKey : null;
  const fromDraftId = "fromDraftId" in target ? target.fromDraftId : undefined;
  const { location } = onceForKey(userId, key, () => {
    item =
      value.type === "link" || value.type === "musing"
        ? createTextItem(userId, target.folderId, value)
        : createUploadItem(userId, target.folderId, value.type, value, files, { fromDraftId });
    return itemAddress(item);
  });
  // The clip is prepared in the background; the item shows its progress meanwhile.
  if (value.type === "video") requestVideoPass();
  return { location, item };
}
