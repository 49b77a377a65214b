import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";

/**
 * The account menu and a folder's menu are <details>, opened and closed by
 * their button without JavaScript (tests/e2e/screens/toasts.spec.ts taps it); with
 * it, Escape and a tap outside close them too (docs/decisions/0131-toasts-and-menus-that-get-out-of-the-way.md).
 */
test.use({ viewport: { width: 375, height: 740 } });

const accountMenu = (page: Page) => page.getByRole("banner").locator("summary");

test.describe("with JavaScript", () => {
  test.skip(
    ({ javaScriptEnabled }) => !javaScriptEnabled,
    "Escape and outside taps need JavaScript",
  );

  test("the account menu closes on Escape, focus back on its button, and on a tap outside", async ({
    page,
    login,
  }) => {
    await login();
    await page.goto("/");
    const button = accountMenu(page);
    const profile = page.getByRole("link", { name: "Profile Settings" });

    await button.click();
    await expect(profile).toBeVisible();
    await profile.focus();
    await page.keyboard.press("Escape");
    await expect(profile).toBeHidden();
    await expect(accountMenu(page)).toBeFocused();

    await button.click();
    await expect(profile).toBeVisible();
    await page.mouse.click(20, 600);
    await expect(profile).toBeHidden();

    await button.click();
    await profile.click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(profile).toBeHidden();
  });

  test("a folder's menu closes on Escape and on a tap outside", async ({ page, login }) => {
    const user = await login();
    createFolderRow(user.id, { name: "Family news" });
    await page.goto("/");
    const button = page.getByLabel("Actions for Family news");
    const settings = page.getByRole("link", { name: "Edit Settings" });

    await button.click();
    await expect(settings).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(settings).toBeHidden();
    await expect(button).toBeFocused();

    await button.click();
    await expect(settings).toBeVisible();
    await page.mouse.click(20, 700);
    await expect(settings).toBeHidden();
  });
});
