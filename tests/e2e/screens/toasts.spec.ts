import type { Locator, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn } from "../support/accounts";
import { createItemRows } from "../support/items";
import { atPhoneAndDesktop } from "../support/viewports";

/** Drags `target` right by `distance` px with the mouse, as a finger would swipe it. */
async function dragRight(page: Page, target: Locator, distance: number) {
  const box = (await target.boundingBox())!;
  const y = box.y + box.height / 2;
  const x = box.x + 20;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + distance / 2, y, { steps: 3 });
  await page.mouse.move(x + distance, y, { steps: 3 });
  await page.mouse.up();
}

test.describe("toasts with JavaScript", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "swiping and F8 need JavaScript");

  test("close with a swipe right of 50 px, and F8 moves focus to them", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser();
    const folder = createFolderRow(sender.id, { name: "Family news" });
    createItemRows(folder.id, 3);
    await signIn(context, sender.id, baseURL!);
    await page.goto(`/folders/${folder.id}`);

    // An Undo toast stays until it is used or dismissed, so timing cannot close it for us.
    await page.getByRole("button", { name: "Delete Item 1" }).click();
    const toast = page.getByRole("status").filter({ hasText: "Item deleted" });
    await expect(toast).toBeVisible();

    const notifications = page.getByRole("region", { name: "Notifications (F8)" });
    await page.keyboard.press("F8");
    await expect(notifications).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(toast.getByRole("button", { name: "Undo" })).toBeFocused();

    await dragRight(page, toast, 30);
    await expect(toast).toBeVisible();
    await dragRight(page, toast, 60);
    await expect(toast).toBeHidden();
  });
});

atPhoneAndDesktop("toasts", () => {
  test("sit at the bottom, clear of the header, and the ✕ closes them, with or without JavaScript", async ({
    page,
    login,
    expectAccessible,
  }) => {
    const sender = await login();
    const folder = createFolderRow(sender.id, { name: "Family news" });
    createItemRows(folder.id, 2);
    await page.goto(`/folders/${folder.id}`);

    await page.getByRole("button", { name: "Delete Item 1" }).click();
    const toast = page.getByRole("status").filter({ hasText: "Item deleted" });
    await expect(toast).toBeVisible();
    const box = (await toast.boundingBox())!;
    const header = (await page.getByRole("banner").boundingBox())!;
    const screenHeight = page.viewportSize()!.height;
    expect(box.y + box.height).toBeGreaterThan(screenHeight - 40);
    expect(box.y + box.height).toBeLessThanOrEqual(screenHeight);
    expect(box.y).toBeGreaterThan(header.y + header.height);
    await expectAccessible();

    // The account menu opens and closes from its button while the toast is up (a <details>).
    const accountMenu = page.getByRole("banner").locator("summary");
    await accountMenu.click();
    await expect(page.getByRole("link", { name: "Profile Settings" })).toBeVisible();
    await accountMenu.click();
    await expect(page.getByRole("link", { name: "Profile Settings" })).toBeHidden();

    await toast.getByText("✕").click();
    await expect(toast).toBeHidden();
  });
});
