import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, uniqueEmail } from "../support/accounts";
import { createItemRow, createItemRows, itemsOf } from "../support/items";
import { mailsTo, waitForMail } from "../support/mail";

/** A sender on a phone, signed in, with a folder for Mum and Dad. */
async function senderWithFolder(
  { context, page, baseURL }: { context: BrowserContext; page: Page; baseURL: string | undefined },
  itemCount: number,
) {
  const sender = await createUser();
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(sender.id, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: uniqueEmail("dad") },
    ],
  });
  for (let index = 1; index <= itemCount; index++) {
    createItemRow(folder.id, { title: `Note ${index}`, sortOrder: index });
  }
  await signIn(context, sender.id, baseURL!);
  await page.setViewportSize({ width: 375, height: 740 });
  return { sender, folder, mum };
}

test.describe("Send Now", () => {
  test("asks first, naming the recipients and the count, and Back sends nothing", async ({
    page,
    context,
    baseURL,
  }) => {
    const fixtures = { page, context, baseURL };
    const { folder, mum } = await senderWithFolder(fixtures, 4);
    await page.goto(`/folders/${folder.id}`);

    await page.getByRole("link", { name: "Send Now" }).click();
    const question = page.getByRole("dialog", { name: "Send 4 items to Mum and Dad now?" });
    await expect(question).toBeVisible();
    await question.getByRole("link", { name: "Back" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    expect(itemsOf(folder.id).filter((item) => item.sentAt !== null)).toEqual([]);
    expect(await mailsTo(mum)).toEqual([]);

    await page.getByRole("link", { name: "Send Now" }).click();
    await question.getByRole("button", { name: "Send Now" }).click();
    await expect(page.getByText("Your folder is on its way (2 messages).")).toBeVisible();
    await waitForMail(mum, /Family news/);
    expect(itemsOf(folder.id).filter((item) => item.sentAt === null)).toEqual([]);
  });

  test("a Send Now that cannot send says why, on the folder and in its question", async ({
    page,
    context,
    baseURL,
  }) => {
    const fixtures = { page, context, baseURL };
    const { folder } = await senderWithFolder(fixtures, 0);
    await page.goto(`/folders/${folder.id}`);
    const button = page.getByRole("button", { name: "Send Now" });
    await expect(button).toBeDisabled();
    await expect(button).toHaveAccessibleDescription("Nothing to send yet: add something first.");

    await page.goto(`/folders/${folder.id}/confirm-send`);
    const dialog = page.getByRole("dialog", { name: "This folder cannot be sent now" });
    await expect(dialog).toContainText("Nothing to send yet");
    await expect(dialog.getByRole("button", { name: "Send Now" })).toHaveCount(0);
  });

  test("counts only what goes, naming the clip being prepared and the photo whose file is missing", async ({
    page,
    context,
    baseURL,
  }) => {
    const fixtures = { page, context, baseURL };
    const { folder, mum } = await senderWithFolder(fixtures, 2);
    const withNote = { addComment: true, commentText: "Look" };
    createItemRow(folder.id, {
      type: "video",
      title: "Beach clip",
      videoStatus: "preparing",
      sortOrder: 3,
      ...withNote,
    });
    createItemRow(folder.id, {
      type: "photo",
      title: "Kites",
      // Its stored file is gone, as a send found it (docs/decisions/0242-a-missing-file-stays-behind-with-its-item.md).
      filePaths: ["gone/kites.jpg"],
      fileNames: ["kites.jpg"],
      fileSizes: [2048],
      missingFiles: ["gone/kites.jpg"],
      sortOrder: 4,
      ...withNote,
    });
    await page.goto(`/folders/${folder.id}`);

    await page.getByRole("link", { name: "Send Now" }).click();
    const question = page.getByRole("dialog", { name: "Send 2 items to Mum and Dad now?" });
    const waits = question.getByRole("region", { name: "2 items wait and stay in the folder" });
    await expect(waits.getByRole("listitem")).toHaveText([
      "Beach clip: its video is not ready yet",
      "Kites: a file is missing",
    ]);
    await question.getByRole("button", { name: "Send Now" }).click();
    await waitForMail(mum, /Family news/);
    expect(
      itemsOf(folder.id)
        .filter((item) => item.sentAt === null)
        .map((item) => item.title),
    ).toEqual(["Beach clip", "Kites"]);

    // Nothing else left: the question says nothing is ready, not that a note is missing.
    await page.goto(`/folders/${folder.id}/confirm-send`);
    const blocked = page.getByRole("dialog", { name: "This folder cannot be sent now" });
    await expect(blocked).toContainText("Nothing here is ready to send yet");
    await expect(
      blocked.getByRole("region", { name: "2 items wait and stay in the folder" }),
    ).toBeVisible();
    await expect(blocked.getByRole("button", { name: "Send Now" })).toHaveCount(0);
  });

  test("another sender's folder has no question to ask", async ({ login, page }) => {
    const owner = await createUser();
    const folder = createFolderRow(owner.id, { name: "Not yours" });
    await login();
    const response = await page.goto(`/folders/${folder.id}/confirm-send`);
    expect(response?.status()).toBe(404);
  });
});

test.describe("deleting an item", () => {
  test("offers Undo, which puts the item back in its place", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    const { folder } = await senderWithFolder({ page, context, baseURL }, 3);
    // The page's own clock, so the toast's timers run on at once instead of being waited for.
    if (javaScriptEnabled) await page.clock.install();
    await page.goto(`/folders/${folder.id}`);

    await page.getByRole("button", { name: "Delete Note 2" }).click();
    const toast = page.getByRole("status").filter({ hasText: "Item deleted" });
    await expect(toast).toContainText('"Note 2" can be put back for 10 minutes.');
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["Note 1", "Note 3"]);
    // With JavaScript the toast stays until used or dismissed, however long the thumb takes.
    if (javaScriptEnabled) await page.clock.runFor(10_000);
    await toast.getByRole("button", { name: "Undo" }).click();

    await expect(page.getByText('"Note 2" is back in its place.')).toBeVisible();
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["Note 1", "Note 2", "Note 3"]);
    await expect(page.locator("li.item-card h3")).toHaveText(["Note 1", "Note 2", "Note 3"]);
  });
});

test.describe("the folder where the thumb is", () => {
  test("on a phone the folder comes before the list, and a new account sees no announcement", async ({
    page,
    context,
    baseURL,
  }) => {
    const { folder, sender } = await senderWithFolder({ page, context, baseURL }, 1);
    createFolderRow(sender.id, { name: "Book club", sortOrder: 1 });
    await page.goto(`/folders/${folder.id}`);
    const folderTop = (await page
      .getByRole("heading", { level: 2, name: "Family news" })
      .boundingBox())!;
    const listTop = (await page
      .getByRole("heading", { level: 1, name: "My Folders" })
      .boundingBox())!;
    expect(folderTop.y).toBeLessThan(listTop.y);
    expect(folderTop.y, "the folder starts on the first screen").toBeLessThan(740);
    await expect(page.getByRole("link", { name: "Add Link" })).toBeInViewport();
    await expect(page.getByText("each folder can now go to up to 5 recipients")).toHaveCount(0);

    await page
      .getByRole("navigation", { name: "Switch folder" })
      .getByRole("link", { name: "Book club" })
      .click();
    await expect(page.getByRole("heading", { level: 2, name: "Book club" })).toBeInViewport();
  });

  test("an account older than the announcement is still told", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser({ createdAt: new Date("2026-01-01T00:00:00Z") });
    const folder = createFolderRow(sender.id, { name: "Old folder" });
    await signIn(context, sender.id, baseURL!);
    await page.goto(`/folders/${folder.id}`);
    await expect(
      page.getByText("New: each folder can now go to up to 5 recipients."),
    ).toBeVisible();
  });

  test("after moving an item the page comes back to it", async ({ page, context, baseURL }) => {
    const { folder } = await senderWithFolder({ page, context, baseURL }, 0);
    const items = createItemRows(folder.id, 12);
    await page.goto(`/folders/${folder.id}`);
    const tenth = page.getByRole("button", { name: "Move Item 10 down" });
    await tenth.scrollIntoViewIfNeeded();
    await tenth.click();
    await expect(page.getByText("Item moved")).toBeVisible();
    await expect(page.locator(`#item-${items[9]!.id}`)).toBeInViewport();
    expect(
      itemsOf(folder.id)
        .map((item) => item.title)
        .slice(9, 11),
    ).toEqual(["Item 11", "Item 10"]);
  });
});
