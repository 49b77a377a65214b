import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn } from "../support/accounts";
import { clickToolbarIcon, withExtensionBrowser } from "../support/extension";
import { itemsOf } from "../support/items";

/**
 * The real extension, loaded unpacked into Debian's Chromium, not connected:
 * Save opens /add in a new tab (clickToolbarIcon says how the click is made).
 */
test("the Chrome extension saves the current tab to a folder", async ({
  javaScriptEnabled,
  baseURL,
}) => {
  test.skip(!javaScriptEnabled, "An extension is JavaScript; /add without it is in add.spec.ts");
  await withExtensionBrowser(async ({ context, extensionId, site }) => {
    const user = await createUser();
    await signIn(context, user.id, baseURL!);
    createFolderRow(user.id, { name: "Family" });
    const folder = createFolderRow(user.id, { name: "Reading" });

    // Options: point the extension at this test server (the default is localhost:3000).
    const options = await context.newPage();
    await options.goto(`chrome-extension://${extensionId}/options.html`);
    await expect(options.getByLabel("Thoughtfully address")).toHaveValue("http://localhost:3000");
    await options.getByLabel("Thoughtfully address").fill(`${baseURL}/`);
    await options.getByRole("button", { name: "Save" }).click();
    await expect(options.getByRole("status")).toHaveText("Saved.");
    await options.close();

    const tab = context.pages()[0] ?? (await context.newPage());
    await tab.goto(site.url);
    const popup = await clickToolbarIcon(context, extensionId, site.url);
    await expect(popup.getByLabel("Title")).toHaveValue("Loopback reading list");
    await expect(popup.getByText(site.url)).toBeVisible();
    await expect(popup.getByText(baseURL!)).toBeVisible();
    await popup.getByLabel(/^Note/).fill("For the weekend");
    const [added] = await Promise.all([
      context.waitForEvent("page"),
      popup.getByRole("button", { name: "Save" }).click(),
    ]);

    await added.waitForLoadState();
    const opened = new URL(added.url());
    expect(opened.origin + opened.pathname).toBe(`${baseURL}/add`);
    expect(Object.fromEntries(opened.searchParams)).toEqual({
      extension: "true",
      url: site.url,
      title: "Loopback reading list",
      note: "For the weekend",
    });
    await added.getByRole("link", { name: "Add to Reading" }).click();
    const dialog = added.getByRole("dialog", { name: "Add Link to Reading" });
    await expect(dialog.getByRole("textbox", { name: "Comment" })).toHaveValue("For the weekend");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(added.getByText("Content captured from browser!")).toBeVisible();
    await expect(added).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));
    await expect(added.getByRole("heading", { name: "Loopback reading list" })).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      { title: "Loopback reading list", urls: [site.url], commentText: "For the weekend" },
    ]);
  });
});
