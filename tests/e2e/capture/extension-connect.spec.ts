import { eq } from "drizzle-orm";
import { apiTokens } from "#db/schema";
import { expect, test } from "../fixtures";
import {
  confirmWithPassword,
  createFolderRow,
  createUser,
  signIn,
  testDb,
} from "../support/accounts";
import { clickToolbarIcon, pointExtensionAt, withExtensionBrowser } from "../support/extension";
import { itemsOf } from "../support/items";

/**
 * The extension connected once (Connect → the app's consent page → a token
 * handed to the extension's own page), then saving in place: the popup lists
 * the folders through the API, saves into the chosen one without opening a
 * tab, and remembers that folder next time.
 */
test("connected, the extension saves the page into the chosen folder without opening a tab", async ({
  javaScriptEnabled,
  baseURL,
}) => {
  test.skip(!javaScriptEnabled, "An extension is JavaScript; /add without it is in add.spec.ts");
  await withExtensionBrowser(async ({ context, extensionId, site }) => {
    const user = await createUser();
    await signIn(context, user.id, baseURL!);
    createFolderRow(user.id, { name: "Family" });
    const reading = createFolderRow(user.id, { name: "Reading" });
    await pointExtensionAt(context, extensionId, baseURL!);
    const tab = context.pages()[0] ?? (await context.newPage());
    await tab.goto(site.url);

    const popup = await clickToolbarIcon(context, extensionId, site.url);
    await expect(popup.getByLabel("Folder")).toBeHidden();
    const [connectPage] = await Promise.all([
      context.waitForEvent("page"),
      popup.getByRole("button", { name: "Connect" }).click(),
    ]);
    await confirmWithPassword(connectPage);
    await expect(
      connectPage.getByRole("heading", { name: "Connect the Chrome extension" }),
    ).toBeVisible();
    await connectPage.getByRole("button", { name: "Connect extension" }).click();
    await connectPage.getByRole("link", { name: "Finish in the extension" }).click();
    await expect(connectPage.getByRole("status")).toHaveText(/^Connected to /);
    expect(connectPage.url()).toBe(`chrome-extension://${extensionId}/connected.html`);
    expect(
      testDb().select().from(apiTokens).where(eq(apiTokens.userId, user.id)).all(),
    ).toMatchObject([{ name: "Chrome extension", scope: "write" }]);

    const pagesBefore = context.pages().length;
    const connected = await clickToolbarIcon(context, extensionId, site.url);
    await expect(connected.getByLabel("Title")).toHaveValue("Loopback reading list");
    await expect(connected.getByLabel("Folder").locator("option")).toHaveText([
      "Family",
      "Reading",
    ]);
    await connected.getByLabel("Folder").selectOption({ label: "Reading" });
    await connected.getByLabel(/^Note/).fill("For the weekend");
    await connected.getByRole("button", { name: "Save" }).click();
    await expect(connected.getByRole("status")).toHaveText("Saved to Reading.");
    // Only the popup itself was opened: no tab on /add.
    expect(context.pages()).toHaveLength(pagesBefore + 1);
    expect(itemsOf(reading.id)).toMatchObject([
      {
        type: "link",
        title: "Loopback reading list",
        urls: [site.url],
        commentText: "For the weekend",
      },
    ]);

    const again = await clickToolbarIcon(context, extensionId, site.url);
    await expect(again.getByLabel("Folder")).toHaveValue(String(reading.id));
    // Without a note it is still saved, and waits for one
    // (docs/decisions/0134-quick-saves-wait-for-a-note.md).
    await again.getByRole("button", { name: "Save" }).click();
    await expect(again.getByRole("status")).toHaveText(
      "Saved to Reading. It waits for a note before it is sent.",
    );
    expect(itemsOf(reading.id).at(-1)).toMatchObject({ commentText: null, addComment: false });
  });
});

test("the extension's page ignores a token it did not ask for", async ({ javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "An extension is JavaScript");
  await withExtensionBrowser(async ({ context, extensionId }) => {
    const page = await context.newPage();
    await page.goto(
      `chrome-extension://${extensionId}/connected.html#state=attacker-chosen-state&token=tht_attacker`,
    );
    await expect(page.getByRole("status")).toHaveText(/nothing was changed/);
    const stored = await page.evaluate(() =>
      (
        globalThis as unknown as {
          chrome: { storage: { local: { get(key: string): Promise<Record<string, unknown>> } } };
        }
      ).chrome.storage.local.get("connection"),
    );
    expect(stored).toEqual({});
  });
});
