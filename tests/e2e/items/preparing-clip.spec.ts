import { eq } from "drizzle-orm";
import { contentItems } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";
import { createItemRow } from "../support/items";

/**
 * Issue 62: a clip being prepared shows its progress on the folder's card, with or without
 * JavaScript, and the page never reloads under an open dialog, where the sender may be typing
 * (app/components/items/pending-previews.tsx).
 */
test.use({ viewport: { width: 375, height: 740 } });

function setProgress(itemId: number, percent: number) {
  testDb()
    .update(contentItems)
    .set({ videoProgress: percent })
    .where(eq(contentItems.id, itemId))
    .run();
}

test("the card of a clip being prepared moves on by itself, and a dialog over it is left alone", async ({
  login,
  page,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  const clip = createItemRow(folder.id, {
    type: "video",
    title: "Beach clip",
    videoStatus: "preparing",
    videoProgress: 0,
    addComment: true,
    commentText: "The waves",
  });
  await page.goto(`/folders/${folder.id}`);
  await expect(page.getByText("Preparing video… 0%")).toBeVisible();

  setProgress(clip.id, 40);
  // Never reloaded by the test: with JavaScript the card looks again, without it the page does.
  await expect(page.getByText("Preparing video… 40%")).toBeVisible({ timeout: 15_000 });

  await page.goto(`/folders/${folder.id}/add/musing`);
  const title = page.getByLabel("Title");
  await title.fill("Typed while it prepares");
  setProgress(clip.id, 70);
  // Longer than the page's reload without JavaScript (10 s): what is typed stays.
  await page.waitForTimeout(12_000);
  await expect(title).toHaveValue("Typed while it prepares");
  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}/add/musing$`));
});
