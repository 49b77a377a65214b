import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { createItemRow } from "../support/items";

/**
 * Issue 49, item 12: a keyboard reaches a folder's Add buttons a few Tabs from the top, and a
 * dialog holds the focus: Tab stays inside, Escape closes it and gives the focus back to the
 * button that opened it.
 */

/** The accessible name of what has the focus, and whether it is inside the open dialog. */
function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return {
      name: (element?.getAttribute("aria-label") ?? element?.textContent ?? "").trim(),
      inDialog: Boolean(element?.closest('[role="dialog"]')),
    };
  });
}

for (const width of [375, 1280]) {
  test(`a folder's Add Link is a few Tabs from the top at ${width} px`, async ({ page, login }) => {
    await page.setViewportSize({ width, height: 800 });
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Family" });
    for (const name of ["Friends", "Work", "Garden"]) createFolderRow(user.id, { name });
    await page.goto(`/folders/${folder.id}`);
    let tabs = 0;
    while ((await focused(page)).name !== "Add Link") {
      await page.keyboard.press("Tab");
      tabs += 1;
      expect(tabs, "Tabs to reach Add Link").toBeLessThanOrEqual(12);
    }
  });
}

test.describe("a dialog holds the focus", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "Without JavaScript it is a page.");

  test("Tab stays inside, and Escape gives the focus back to Add Link", async ({ page, login }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Family" });
    await page.goto(`/folders/${folder.id}`);
    await page.getByRole("link", { name: "Add Link" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Add Link" });
    await expect(dialog).toBeVisible();
    await expect.poll(async () => (await focused(page)).inDialog).toBe(true);

    const names = new Set<string>();
    for (let press = 0; press < 30; press += 1) {
      await page.keyboard.press(press % 7 === 6 ? "Shift+Tab" : "Tab");
      const now = await focused(page);
      expect(now.inDialog, `focus after ${press + 1} presses (${now.name})`).toBe(true);
      names.add(now.name);
    }
    // It went round: the Close button and the Add button were both reached.
    expect(names).toContain("Close");
    expect(names).toContain("Add");

    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect.poll(async () => (await focused(page)).name).toBe("Add Link");
  });

  test("a field tapped as the sheet's script starts keeps the focus: the first field does not take it", async ({
    page,
    login,
  }) => {
    // The clock held, the dialog's first-field focus (a tick after its script runs) waits until
    // the note is tapped: a CI run once typed a note into the title that way.
    const now = Date.now();
    await page.clock.install({ time: now });
    await page.clock.pauseAt(now + 1000);
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    const item = createItemRow(folder.id, { type: "musing", title: "Earlier", note: "First." });
    await page.goto(`/folders/${folder.id}/items/${item.id}/edit`);
    const dialog = page.getByRole("dialog", { name: "Edit Item" });
    // The note's counter shows once the sheet's script has run.
    await expect(dialog.getByText(/^\d+\/1000$/)).toBeVisible();
    const note = dialog.getByLabel("Note");
    await note.focus();
    await page.clock.runFor(100);
    await expect(note).toBeFocused();
    // The keyboard types where the focus is (a locator's own typing would focus it first).
    await page.keyboard.press("End");
    await page.keyboard.type(" Then more.");
    await expect(note).toHaveValue("First. Then more.");
    await expect(dialog.getByLabel("Title")).toHaveValue("Earlier");
  });
});
