import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn } from "../support/accounts";
import { itemsOf } from "../support/items";

/** A sender on a 375 px phone, signed in, with one folder for Mum. */
async function phoneSender({
  page,
  context,
  baseURL,
}: {
  page: Page;
  context: BrowserContext;
  baseURL: string | undefined;
}) {
  const user = await createUser();
  const folder = createFolderRow(user.id, {
    name: "For Mum",
    recipients: [{ name: "Mum", email: "mum@example.com" }],
  });
  await signIn(context, user.id, baseURL!);
  await page.setViewportSize({ width: 375, height: 740 });
  return { user, folder };
}

test.describe("fewer taps", () => {
  test("Add Link asks for the address first, on a URL keyboard, with the cursor in it", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }, testInfo) => {
    const { folder } = await phoneSender({ page, context, baseURL });
    await page.goto(`/folders/${folder.id}`);
    await page.getByRole("link", { name: "Add Link", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Add Link" });
    const link = dialog.getByLabel("Link 1", { exact: true });
    await expect(link).toBeVisible();
    await expect(link).toHaveAttribute("type", "url");
    const fields = dialog.locator('input:not([type="hidden"])');
    await expect(fields.first()).toHaveAttribute("name", "urls[0]");
    await expect(fields.nth(1)).toHaveAttribute("name", "title");
    if (javaScriptEnabled) await expect(link).toBeFocused();
    const shot = testInfo.outputPath("add-link-sheet-phone.png");
    await page.screenshot({ path: shot });
    await testInfo.attach("add-link-sheet-phone.png", { path: shot, contentType: "image/png" });

    // The schema's messages still come, next to their fields, after the focus moved in.
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(dialog.getByText(/missing required fields/).first()).toBeVisible();

    // An address typed without https:// is accepted, with or without JavaScript.
    await dialog.getByLabel("Link 1", { exact: true }).fill("example.com/read-this");
    await dialog.getByLabel("Title").fill("Read this");
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("For the train");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      { title: "Read this", urls: ["https://example.com/read-this"] },
    ]);
  });

  test("a sheet opens with the cursor in its first field", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "without JavaScript a sheet is a page; focus is the browser's");
    const { folder } = await phoneSender({ page, context, baseURL });
    await page.goto(`/folders/${folder.id}`);
    await page.getByRole("link", { name: "Add Musings", exact: true }).click();
    await expect(
      page.getByRole("dialog", { name: "Add Musing" }).getByLabel("Title"),
    ).toBeFocused();
    await page.goto(`/folders/${folder.id}/edit`);
    await expect(
      page.getByRole("dialog", { name: "Folder Details" }).getByLabel("Folder name"),
    ).toBeFocused();
  });

  test("Add recipient puts the cursor in the new recipient's name", async ({
    page,
    context,
    baseURL,
  }) => {
    await phoneSender({ page, context, baseURL });
    await page.goto("/folders/new");
    const dialog = page.getByRole("dialog", { name: "Folder Details" });
    await dialog.getByLabel("Folder name").fill("Book club");
    await dialog.getByLabel("Recipient 1 email").fill("ann@example.com");
    await dialog.getByRole("button", { name: "Add recipient" }).click();
    await expect(dialog.getByLabel("Recipient 2 name")).toBeFocused();
    await expect(dialog.getByLabel("Recipient 1 email")).toHaveValue("ann@example.com");
  });

  test("a page shared with only its address opens the prefilled form, with no error", async ({
    page,
    context,
    baseURL,
  }) => {
    const { folder } = await phoneSender({ page, context, baseURL });
    // What a share sheet may send: the address, no title and no text.
    await page.goto(`/add?${new URLSearchParams({ url: "https://www.news.example.org/42" })}`);
    await expect(page.getByRole("article", { name: "Captured from your browser" })).toBeVisible();
    await expect(page.getByRole("alert")).toHaveCount(0);
    await page.getByRole("link", { name: "Add to For Mum" }).click();
    const dialog = page.getByRole("dialog", { name: "Add Link to For Mum" });
    await expect(dialog.getByLabel("Link 1", { exact: true })).toHaveValue(
      "https://www.news.example.org/42",
    );
    // Left empty, the page's own title is fetched at save, else the site's name is used
    // (docs/decisions/0134-quick-saves-wait-for-a-note.md).
    await expect(dialog.getByLabel("Title")).toHaveValue("");
    await expect(dialog.getByLabel("Title")).toHaveAccessibleDescription(
      "Left empty, the page's own title is used.",
    );
    await expect(dialog.getByRole("alert")).toHaveCount(0);
    await expect(dialog.getByText("Title is required")).toHaveCount(0);
    await expect(dialog.getByText("Invalid URL format")).toHaveCount(0);

    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("You'll like this");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content captured from browser!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      { title: "news.example.org", urls: ["https://www.news.example.org/42"] },
    ]);
  });
});
