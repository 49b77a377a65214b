import { securityEvents } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";

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
  await expect(dialog.getByRole("definition")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Get this folder's address" }).click();

  const address = dialog.getByRole("definition");
  await expect(address).toHaveText(/^[a-km-z2-9]{16}@in\.thoughtfully\.test$/);
  const first = (await address.textContent()) ?? "";
  await expect(page.getByRole("link", { name: "Write to Family news now" })).toHaveAttribute(
    "href",
    `mailto:${first}`,
  );
  // At 375 px the whole address shows, wrapped rather than cut.
  expect(await address.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(
    true,
  );
  await expectAccessible();

  // A new address is asked for twice: the old one stops at once.
  await dialog.getByRole("link", { name: "Make a new address" }).click();
  const ask = dialog.getByRole("region", { name: "Make a new address?" });
  await expect(ask).toContainText("The address above stops at once");
  await ask.getByRole("link", { name: "Keep this address" }).click();
  await expect(ask).toHaveCount(0);
  await expect(address).toHaveText(first);

  await dialog.getByRole("link", { name: "Make a new address" }).click();
  await ask.getByRole("button", { name: "Make a new address" }).click();
  await expect(page.getByText("The old address no longer saves anything.")).toBeVisible();
  await expect(address).not.toHaveText(first);
  const second = (await address.textContent()) ?? "";
  expect(second).toMatch(/@in\.thoughtfully\.test$/);

  // The folder page shows the current address under the Add buttons.
  await page.goto(`/folders/${folder.id}`);
  await expect(page.getByRole("link", { name: second })).toHaveAttribute(
    "href",
    `mailto:${second}`,
  );
});

test("a form that skips the question makes no new address", async ({ page, login }) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family news" });
  await page.goto(`/folders/${folder.id}/email-address`);
  await page.getByRole("button", { name: "Get this folder's address" }).click();
  const address = page.getByRole("dialog").getByRole("definition");
  await expect(address).toHaveText(/@in\.thoughtfully\.test$/);
  const first = (await address.textContent()) ?? "";
  const csrf = (await page.locator('input[name="csrf"]').first().getAttribute("value")) ?? "";
  // The first address's own form, sent again: the server asks instead of replacing.
  const response = await page.request.post(`/folders/${folder.id}/email-address`, {
    form: { csrf, intent: "make-address" },
    maxRedirects: 0,
  });
  expect(response.status()).toBe(302);
  expect(response.headers().location).toBe(`/folders/${folder.id}/email-address?new`);
  await page.reload();
  await expect(address).toHaveText(first);
});

test("copying says Copied until the address changes", async ({
  page,
  context,
  login,
  javaScriptEnabled,
}) => {
  test.skip(!javaScriptEnabled, "Copying needs JavaScript.");
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family news" });
  await page.goto(`/folders/${folder.id}/email-address`);
  await page.getByRole("button", { name: "Get this folder's address" }).click();
  const address = page.getByRole("dialog").getByRole("definition");
  await expect(address).toHaveText(/@in\.thoughtfully\.test$/);
  await page.getByRole("button", { name: "Copy address" }).click();
  await expect(page.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
    await address.textContent(),
  );
  await page.getByRole("link", { name: "Make a new address" }).click();
  await page
    .getByRole("region", { name: "Make a new address?" })
    .getByRole("button", { name: "Make a new address" })
    .click();
  await expect(page.getByText("The old address no longer saves anything.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Copy address" })).toBeVisible();
});

test("mail the address turned away shows on the folder page, in plain words", async ({
  page,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family news" });
  await page.goto(`/folders/${folder.id}/email-address`);
  await page.getByRole("button", { name: "Get this folder's address" }).click();
  await expect(page.getByRole("dialog").getByRole("definition")).toBeVisible();
  for (const reason of [
    "not from the folder owner's verified address",
    "not from the folder owner's verified address",
    "too many messages to this address",
  ]) {
    testDb()
      .insert(securityEvents)
      .values({
        eventType: "inbound_mail_refused",
        userId: user.id,
        details: { reason, folderId: folder.id, via: "smtp" },
      })
      .run();
  }
  await page.goto(`/folders/${folder.id}`);
  await expect(
    page.getByText(
      `Not saved in the last 7 days: 3 e-mails to this address. 2 were sent from an address other than ${user.email}; 1 was over 30 in an hour.`,
    ),
  ).toBeVisible();
});

test("another sender's folder has no address to see or make", async ({ page, login }) => {
  const owner = await login();
  const folder = createFolderRow(owner.id, { name: "Theirs" });
  await login();
  const response = await page.goto(`/folders/${folder.id}/email-address`);
  expect(response?.status()).toBe(404);
});
