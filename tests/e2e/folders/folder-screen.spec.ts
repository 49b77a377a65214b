import { expect, test } from "../fixtures";
import { createFolderRow, uniqueEmail } from "../support/accounts";
import { openMoreMenu } from "../support/folder-screen";
import { createItemRow } from "../support/items";

/**
 * The folder screen leads with adding, then sending; the rest waits behind
 * "More" (docs/decisions/0143-one-first-action-per-screen.md). Its folder
 * cards read alike (docs/decisions/0145-folder-cards-read-the-same.md).
 */
test.use({ viewport: { width: 375, height: 740 } });

test("Add comes first, then Send Now and Email Preview; the rest is behind More", async ({
  page,
  login,
  javaScriptEnabled,
  expectAccessible,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family news" });
  createItemRow(folder.id, { title: "Tomatoes" });
  await page.goto(`/folders/${folder.id}`);
  const detail = page.locator("section[aria-labelledby=folder-heading]");
  const top = async (name: string, role: "link" | "button" = "link") =>
    (await detail.getByRole(role, { name, exact: true }).boundingBox())!.y;
  const more = detail.locator("summary", { hasText: /^More$/ });

  expect(await top("Add Link")).toBeLessThan(await top("Send Now"));
  expect(await top("Add Files")).toBeLessThan(await top("Email Preview"));
  expect(await top("Send Now")).toBeLessThanOrEqual((await more.boundingBox())!.y);
  const rest = [
    detail.getByRole("link", { name: "Sent", exact: true }),
    detail.getByRole("button", { name: "Pause Delivery" }),
    detail.getByRole("link", { name: "Folder Settings" }),
    detail.getByRole("link", { name: "Recipients", exact: true }),
    detail.getByRole("link", { name: "Delete Folder" }),
  ];
  for (const entry of rest) await expect(entry).toBeHidden();

  await openMoreMenu(page);
  for (const entry of rest) await expect(entry).toBeVisible();
  await expectAccessible();
  if (javaScriptEnabled) {
    await page.keyboard.press("Escape");
    await expect(rest[0]!).toBeHidden();
    await expect(more).toBeFocused();
    await openMoreMenu(page);
  }
  await detail.getByRole("link", { name: "Recipients", exact: true }).click();
  await expect(page.getByRole("dialog", { name: 'Recipients of "Family news"' })).toBeVisible();
});

test("folder cards read alike: a count of recipients and the next delivery's day in the sender's zone", async ({
  page,
  login,
}) => {
  // 11:01 UTC on Sunday 28 November 2027 is 00:01 on Monday 29 November in Auckland.
  const nextSendAt = new Date("2027-11-28T11:01:00Z");
  const user = await login({ timeZone: "Pacific/Auckland" });
  createFolderRow(user.id, {
    name: "Mum only",
    sortOrder: 0,
    recipients: [{ name: "Mum", email: uniqueEmail("mum") }],
    nextSendAt,
  });
  createFolderRow(user.id, {
    name: "Both",
    sortOrder: 1,
    recipients: [
      { name: "Mum", email: uniqueEmail("mum") },
      { name: "Dad", email: uniqueEmail("dad") },
    ],
    nextSendAt,
  });
  await page.goto("/");
  const cards = page.getByRole("complementary", { name: "My Folders" }).getByRole("listitem");
  await expect(cards.nth(0)).toContainText("1 recipient");
  await expect(cards.nth(0)).toContainText("Next: Mon 29 Nov");
  await expect(cards.nth(1)).toContainText("2 recipients");
  await expect(cards.nth(1)).toContainText("Next: Mon 29 Nov");
  await expect(page.getByRole("definition").filter({ hasText: "Mon 29 Nov" })).toBeVisible();
});

for (const width of [375, 768, 1024, 1280]) {
  test(`every pill on the folder screen keeps its one-line shape at ${width} px`, async ({
    page,
    login,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "A folder with a rather long name" });
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`/folders/${folder.id}`);
    const tall = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>(".btn-primary, .btn-secondary")]
        .filter((pill) => pill.checkVisibility())
        .filter((pill) => pill.getBoundingClientRect().height > 46)
        .map((pill) => `${pill.textContent?.trim()}: ${pill.getBoundingClientRect().height} px`),
    );
    expect(tall).toEqual([]);
  });
}
