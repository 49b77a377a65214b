import { eq } from "drizzle-orm";
import { senderBranding } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";
import { holdScripts } from "../support/held-scripts";
import { createItemRow } from "../support/items";

const PERKS = [
  "Unlimited folders and storage: each folder still holds up to 20.0 MB, so every e-mail stays deliverable",
  "Daily and every-two-weeks delivery: as well as weekly and monthly",
  "Newsletter templates: Letter and Postcard as well as Classic",
  "Your own branding: an accent colour and a header image on every newsletter",
  "Delivery analytics: how many recipients opened each issue and clicked its links",
  "Priority support: answered first, within one working day",
];

const premium = { subscriptionTier: "premium", subscriptionStatus: "active" } as const;

function brandingOf(userId: number) {
  return testDb().select().from(senderBranding).where(eq(senderBranding.userId, userId)).get();
}

test.describe("Premium shown as it is", () => {
  test("the upgrade sheet lists every perk with Stripe's price and thumbnails of the real templates", async ({
    login,
    page,
    expectAccessible,
  }) => {
    await login();
    await page.goto("/");
    // The banner says the same perks, in one line.
    await expect(page.getByRole("region", { name: "Premium" })).toContainText(
      "Go Premium: Unlimited folders and storage, daily and every-two-weeks delivery, newsletter templates, your own branding, delivery analytics and priority support.",
    );
    await page.getByRole("link", { name: "Upgrade to Premium" }).click();
    const sheet = page.getByRole("dialog", { name: "Upgrade to Premium" });
    const perks = sheet.getByRole("list", { name: "Premium perks" });
    for (const perk of PERKS) await expect(perks).toContainText(perk);
    // The fake Stripe's price for STRIPE_PRICE_ID.
    await expect(sheet.getByText("$4.99 a month", { exact: true })).toBeVisible();

    const templates = sheet.getByRole("list", { name: "Templates" }).getByRole("listitem");
    await expect(templates).toHaveText(["Classic", "Letter", "Postcard"]);
    const frames = sheet.locator("iframe[srcdoc]");
    await expect(frames).toHaveCount(3);
    for (const index of [0, 1, 2]) {
      await expect(frames.nth(index).contentFrame().getByText("Sunday pancakes")).toBeVisible();
    }
    // The letter's paper colour, from the real template's CSS.
    await expect(frames.nth(1)).toHaveAttribute("srcdoc", /#f7f1e6/);
    await expectAccessible();

    // On a phone the sheet, thumbnails and all, fits the screen's width.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await expect(sheet.getByText("$4.99 a month", { exact: true })).toBeVisible();
    await expect(frames.nth(2)).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
  });

  test("a Premium sender keeps the usage box, with counts and no bars", async ({ login, page }) => {
    const sender = await login(premium);
    const folder = createFolderRow(sender.id, { name: "Family" });
    createFolderRow(sender.id, { name: "Friends" });
    createItemRow(folder.id, {
      type: "file",
      title: "Report",
      addComment: true,
      commentText: "For you",
      filePaths: ["not-read.pdf"],
      fileNames: ["report.pdf"],
      fileSizes: [3 * 1024 * 1024],
      mimeTypes: ["application/pdf"],
    });
    await page.goto("/");
    const usage = page.getByRole("region", { name: "Usage" });
    await expect(usage).toContainText("Folders: 2");
    await expect(usage).toContainText("Storage: 3.0 MB");
    await expect(usage.getByRole("progressbar")).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Upgrade to Premium" })).toHaveCount(0);
  });

  test("a colour picked before the page's script arrives is kept, and the hex field follows it", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "Without JavaScript the fields are never kept in step.");
    await login(premium);
    const scripts = await holdScripts(page);
    await page.goto("/profile/branding", { waitUntil: "commit" });
    const dialog = page.getByRole("dialog", { name: "Newsletter look" });
    const picker = dialog.getByLabel("Accent colour picker");
    await picker.fill("#123456");

    scripts.release();
    const hex = dialog.getByLabel("Accent colour (optional)");
    await expect(hex).toHaveValue("#123456");
    await expect(picker).toHaveValue("#123456");
    await expect(dialog.getByText(/^contrast with white [\d.]+:1: enough/)).toBeVisible();
  });

  test("the accent colour: a picker beside the hex field, its contrast shown, a light one refused", async ({
    login,
    page,
    javaScriptEnabled,
    expectAccessible,
  }) => {
    const sender = await login(premium);
    await page.goto("/profile/branding");
    const dialog = page.getByRole("dialog", { name: "Newsletter look" });
    const hex = dialog.getByLabel("Accent colour (optional)");
    const picker = dialog.getByLabel("Accent colour picker");
    await expect(picker).toHaveAttribute("type", "color");
    await expect(dialog.getByText("Ours: contrast with white 8.9:1: enough")).toBeVisible();
    // Each template beside its radio button, drawn by the renderer.
    await expect(dialog.locator("label", { hasText: "Postcard" }).locator("iframe")).toHaveCount(1);

    await picker.fill("#ffff00");
    if (javaScriptEnabled) {
      // Kept in step, and the contrast follows before anything is sent.
      await expect(hex).toHaveValue("#ffff00");
      await expect(dialog.getByText("contrast with white 1.0:1: too light")).toBeVisible();
    } else {
      await expect(hex).toHaveValue("");
    }
    await dialog.getByRole("button", { name: "Save look" }).click();
    await expect(
      dialog.getByText(
        "This colour is too light to read white text on, or links in: please choose a darker one",
      ),
    ).toBeVisible();
    await expect(hex).toHaveValue("#ffff00");
    await expect(picker).toHaveValue("#ffff00");
    await expect(dialog.getByText("contrast with white 1.0:1: too light")).toBeVisible();
    expect(brandingOf(sender.id)).toBeUndefined();
    await expectAccessible();

    // The picker alone chooses, with or without JavaScript.
    await picker.fill("#1e3a8a");
    await dialog.getByRole("button", { name: "Save look" }).click();
    await expect(page.getByText("Newsletter look saved")).toBeVisible();
    expect(brandingOf(sender.id)).toMatchObject({ accentColor: "#1e3a8a" });

    // Typing in the hex field works as before.
    await page.goto("/profile/branding");
    await hex.fill("#7c2d12");
    await dialog.getByRole("button", { name: "Save look" }).click();
    await expect(page.getByText("Newsletter look saved")).toBeVisible();
    expect(brandingOf(sender.id)).toMatchObject({ accentColor: "#7c2d12" });
  });
});
