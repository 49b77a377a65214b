import crypto from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn } from "../support/accounts";
import { itemsOf, storedFiles } from "../support/items";

/**
 * A saved link gets its preview card from the page server on loopback
 * (playwright.config.ts), fetched in the background: the save answers at
 * once, the card shows once it is ready, and the sender can take the picture
 * or the whole card away, with JavaScript or without.
 */
function itemCard(page: Page, title: string) {
  return page
    .getByRole("region", { name: "Saved items" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { level: 3, name: title }) });
}

test("a saved link shows its preview card; the sender removes the picture, then the card", async ({
  page,
  context,
  baseURL,
  expectAccessible,
}) => {
  // Many steps, and a background fetch to wait for: more than the default 30 s under load.
  test.slow();
  const user = await createUser();
  const folder = createFolderRow(user.id, { name: "Family" });
  await signIn(context, user.id, baseURL!);
  await page.goto(`/folders/${folder.id}`);

  const topic = `tides-${crypto.randomBytes(4).toString("hex")}`;
  const url = `${process.env.E2E_PREVIEW_ORIGIN}/article/${topic}`;
  await page.getByRole("link", { name: "Add Link", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Add Link" });
  await expect(dialog.getByLabel("Title")).toBeVisible();
  await dialog.getByLabel("Title").fill("Tide tables");
  await dialog.getByLabel("Link 1", { exact: true }).fill(url);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("For the trip");
  await dialog.getByRole("radio", { name: /^None/ }).check();
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();

  // Fetched in the background; the card is there on the next visit once ready.
  await expect.poll(() => itemsOf(folder.id)[0]?.previewStatus, { timeout: 15_000 }).toBe("ready");
  await page.reload();
  const card = itemCard(page, "Tide tables");
  const preview = card.getByRole("figure", { name: "Preview of Tide tables" });
  await expect(preview.getByText(`${topic}: the long read`)).toBeVisible();
  await expect(preview.getByText("Example Gazette")).toBeVisible();
  await expect(preview.getByText(`Everything about ${topic}, in one page.`)).toBeVisible();
  const picture = preview.getByRole("img", { name: `${topic}: the long read` });
  await expect(picture).toBeVisible();
  await expect
    .poll(() => picture.evaluate((image: HTMLImageElement) => image.naturalWidth))
    .toBe(600);
  await expect(card.getByRole("link", { name: url })).toBeVisible();
  await expectAccessible();

  const pictureKey = itemsOf(folder.id)[0]?.previewImageKey ?? "";
  expect(storedFiles().has(pictureKey)).toBe(true);

  // Email Preview shows the card as the e-mail will, its picture from the owner's files.
  await page.goto(`/folders/${folder.id}/preview`);
  const frame = page.frameLocator('iframe[title="Email preview"]');
  const inMail = frame.getByRole("img", { name: `${topic}: the long read` });
  await expect(inMail).toHaveAttribute("src", `/files/${pictureKey}`);
  await expect
    .poll(() => inMail.evaluate((image: HTMLImageElement) => image.naturalWidth))
    .toBe(600);
  await expect(frame.getByText(`Everything about ${topic}, in one page.`)).toBeVisible();
  await page.goto(`/folders/${folder.id}`);
  await preview.getByRole("button", { name: "Remove the preview picture of Tide tables" }).click();
  await expect(page.getByText("Preview picture removed")).toBeVisible();
  await expect(picture).toHaveCount(0);
  await expect(preview.getByText("Example Gazette")).toBeVisible();
  expect(itemsOf(folder.id)[0]).toMatchObject({ previewImageKey: null, previewImageSize: 0 });
  await expect.poll(() => storedFiles().has(pictureKey)).toBe(false);

  await preview.getByRole("button", { name: "Remove the preview of Tide tables" }).click();
  await expect(page.getByText("Preview removed", { exact: true })).toBeVisible();
  await expect(card.getByRole("figure")).toHaveCount(0);
  // The plain link stays.
  await expect(card.getByRole("link", { name: url })).toBeVisible();
  expect(itemsOf(folder.id)[0]?.previewStatus).toBe("removed");
});

test("with JavaScript the card appears by itself once fetched", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  test.skip(!javaScriptEnabled, "without JavaScript the card shows on the next visit");
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  await page.goto(`/folders/${folder.id}`);

  const topic = `reefs-${crypto.randomBytes(4).toString("hex")}`;
  await page.getByRole("link", { name: "Add Link", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Add Link" });
  await expect(dialog.getByLabel("Title")).toBeVisible();
  await dialog.getByLabel("Title").fill("Reef guide");
  await dialog
    .getByLabel("Link 1", { exact: true })
    .fill(`${process.env.E2E_PREVIEW_ORIGIN}/article/${topic}`);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("For the dive");
  await dialog.getByRole("radio", { name: /^None/ }).check();
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();

  const preview = itemCard(page, "Reef guide").getByRole("figure", {
    name: "Preview of Reef guide",
  });
  await expect(preview.getByText(`${topic}: the long read`)).toBeVisible({ timeout: 20_000 });
});

test("a page that cannot be fetched leaves the plain link", async ({ page, context, baseURL }) => {
  const user = await createUser();
  const folder = createFolderRow(user.id, { name: "Family" });
  await signIn(context, user.id, baseURL!);
  await page.goto(`/folders/${folder.id}/add/link`);
  const dialog = page.getByRole("dialog", { name: "Add Link" });
  await expect(dialog.getByLabel("Title")).toBeVisible();
  const url = `${process.env.E2E_PREVIEW_ORIGIN}/missing/${crypto.randomBytes(4).toString("hex")}`;
  await dialog.getByLabel("Title").fill("Gone page");
  await dialog.getByLabel("Link 1", { exact: true }).fill(url);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Was here");
  await dialog.getByRole("radio", { name: /^None/ }).check();
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();
  // The first attempt is made and fails (a retry waits a minute).
  await expect.poll(() => itemsOf(folder.id)[0]?.previewAttempts, { timeout: 15_000 }).toBe(1);
  await page.reload();
  const card = itemCard(page, "Gone page");
  await expect(card.getByRole("link", { name: url })).toBeVisible();
  await expect(card.getByRole("figure")).toHaveCount(0);
});
