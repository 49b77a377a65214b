import type { Page } from "@playwright/test";

/**
 * Opens the folder screen's "More" menu, where Sent, Pause or Resume
 * Delivery, Folder Settings, Recipients and Delete Folder are
 * (docs/decisions/0143-one-first-action-per-screen.md).
 */
export async function openMoreMenu(page: Page) {
  await page
    .getByRole("main")
    .locator("summary", { hasText: /^More$/ })
    .click();
}
