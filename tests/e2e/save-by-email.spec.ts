import { expect, test } from "./fixtures";
import { createFolderRow } from "./support/accounts";

/**
 * A folder's own address for saving by e-mail (docs/decisions/0158-save-by-email.md):
 * asked for on the folder page, shown with a mailto link, replaced on request,
 * with and without JavaScript. What the address receives is tested over real
 * SMTP in tests/integration/save-by-email.test.ts.
 */
test.use({ viewport: { width: 375, height: 740 } });

test("a folder's address is made on request, shown with a mailto link, and replaced by a new one", async ({
  page,
  login,
  expectAccessible,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family news" });
  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("link", { name: "Save to this folder by e-mail" }).click();
  const dialog = page.getByRole("dialog", { name: 'Save to "Family news" by e-mail' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("This folder's address")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Get this folder's address" }).click();

  const field = page.getByLabel("This folder's address");
  await expect(field).toHaveValue(/^[a-km-z2-9]{16}@in\.thoughtfully\.test$/);
  const first = await field.inputValue();
  await expect(page.getByRole("link", { name: "Write to Family news now" })).toHaveAttribute(
    "href",
    `mailto:${first}`,
  );
  await expectAccessible();

  await page.getByRole("button", { name: "Make a new address" }).click();
  await expect(page.getByText("The old address no longer saves anything.")).toBeVisible();
  await expect(field).not.toHaveValue(first);
  const second = await field.inputValue();
  expect(second).toMatch(/@in\.thoughtfully\.test$/);

  // The folder page shows the current address under the Add buttons.
  await page.goto(`/folders/${folder.id}`);
  await expect(page.getByRole("link", { name: second })).toHaveAttribute(
    "href",
    `mailto:${second}`,
  );
});

test("another sender's folder has no address to see or make", async ({ page, login }) => {
  const owner = await login();
  const folder = createFolderRow(owner.id, { name: "Theirs" });
  await login();
  const response = await page.goto(`/folders/${folder.id}/email-address`);
  expect(response?.status()).toBe(404);
});
