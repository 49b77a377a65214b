import { eq } from "drizzle-orm";
import { contentItems, sendLedger } from "#db/schema";
import type { ContentItem } from "#db/types";
import type { FileStorage } from "#storage/index";
import { filesItNeeds } from "~/modules/items/missing-file";
import { writeTransaction } from "~/platform/db.server";

/**
 * A stored file gone (a restore, a lost volume) is its item's problem, not its folder's
 * (docs/decisions/0242-a-missing-file-stays-behind-with-its-item.md). Before a send builds its
 * issue, every file its items need is looked for once; an item missing one is taken out of the
 * send and stays in the folder, the files it misses recorded for its card to say so. The rest
 * goes. A storage that cannot answer (a bucket down) is not an answer: the caller's try fails
 * and its retries follow, as before.
 */
export type FileCheck = {
  /** The items the send carries: a link whose preview picture is gone goes without it. */
  carried: ContentItem[];
  /** Items left behind, with the stored keys they miss. */
  leftBehind: { item: ContentItem; missing: string[] }[];
};

async function isGone(storage: FileStorage, key: string) {
  return (await storage.stat(key)) === null;
}

export async function checkStoredFiles(
  items: ContentItem[],
  storage: FileStorage,
): Promise<FileCheck> {
  const looked = await Promise.all(
    items.map(async (item) => {
      const needed = filesItNeeds(item);
      const gone = await Promise.all(needed.map((key) => isGone(storage, key)));
      const missing = needed.filter((_, index) => gone[index]);
      const lostPicture =
        item.type === "link" &&
        item.previewImageKey !== null &&
        (await isGone(storage, item.previewImageKey));
      return { item: lostPicture ? { ...item, previewImageKey: null } : item, missing };
    }),
  );
  return {
    carried: looked.filter((entry) => entry.missing.length === 0).map((entry) => entry.item),
    leftBehind: looked.filter((entry) => entry.missing.length > 0),
  };
}

/**
 * Records what the check found, in one transaction: the send carries only `carried` from now
 * on (its retries too: decided once per send), each item left behind names what it misses,
 * and an item whose files are back forgets what an earlier send missed.
 */
export function recordFileCheck(ledger: { id: number; itemIds: number[] }, check: FileCheck) {
  const foundAgain = check.carried.filter((item) => item.missingFiles.length > 0);
  if (check.leftBehind.length === 0 && foundAgain.length === 0) return;
  writeTransaction((tx) => {
    for (const { item, missing } of check.leftBehind) {
      tx.update(contentItems)
        .set({ missingFiles: missing })
        .where(eq(contentItems.id, item.id))
        .run();
    }
    for (const item of foundAgain) {
      tx.update(contentItems).set({ missingFiles: [] }).where(eq(contentItems.id, item.id)).run();
    }
    if (check.leftBehind.length > 0) {
      const left = new Set(check.leftBehind.map(({ item }) => item.id));
      tx.update(sendLedger)
        .set({ itemIds: ledger.itemIds.filter((id) => !left.has(id)) })
        .where(eq(sendLedger.id, ledger.id))
        .run();
    }
  });
  for (const { item, missing } of check.leftBehind) {
    console.error(
      `[send] send ${ledger.id}: item ${item.id} (${item.type}) stays in folder ${item.folderId}: its stored ${missing.length === 1 ? "file is" : "files are"} missing (${missing.join(", ")})`,
    );
  }
}
