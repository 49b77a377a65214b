import { eq } from "drizzle-orm";
import { folders } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, testDb, uniqueEmail } from "../support/accounts";
import { runAppScript } from "../support/app-script";
import { createItemRow } from "../support/items";
import { linkIn, waitForMail } from "../support/mail";

/**
 * The recipient's archive (docs/decisions/0214-the-recipients-archive.md) on a
 * phone: three issues sent over SMTP by the production Send Now, the last
 * e-mail's "All issues of Family news" lists all three newest first, with the
 * second one's note; each opens its web version, which links back; every
 * issue is a 44 px target 8 px from the next; after Mum unsubscribes from the
 * archive's own link, it lists none.
 */
test.use({ viewport: { width: 375, height: 740 } });

const NOTE = "Big week: Sam started school.";

test("three issues sent, the archive shows three, none after unsubscribing", async ({
  page,
  expectAccessible,
}) => {
  const sender = await createUser({ firstName: "Ada", lastName: "Lovelace" });
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(sender.id, {
    name: "Family news",
    recipients: [{ name: "Mum", email: mum }],
  });
  for (const week of [1, 2, 3]) {
    createItemRow(folder.id, { type: "musing", title: `Week ${week}`, note: "A few lines." });
    if (week === 2) {
      testDb().update(folders).set({ issueNote: NOTE }).where(eq(folders.id, folder.id)).run();
    }
    runAppScript("tests/support/send-now.ts", [String(sender.id), String(folder.id)]);
  }
  const third = await waitForMail(mum, /Family news/, { count: 3 });

  const response = await page.goto(linkIn(third, "/issues/"));
  expect(response!.headers()["x-robots-tag"]).toBe("noindex, nofollow");
  await expect(
    page.getByRole("heading", { level: 1, name: "All issues of Family news" }),
  ).toBeVisible();
  const issues = page.getByRole("list", { name: "Issues, newest first" }).getByRole("link");
  await expect(issues).toHaveCount(3);
  await expect(issues.nth(1)).toContainText(NOTE);
  await expect(issues.nth(0)).not.toContainText(NOTE);
  const boxes = await Promise.all(
    [0, 1, 2].map(async (index) => (await issues.nth(index).boundingBox())!),
  );
  for (const [index, box] of boxes.entries()) {
    expect(box.height).toBeGreaterThanOrEqual(44);
    if (index > 0)
      expect(box.y - (boxes[index - 1]!.y + boxes[index - 1]!.height)).toBeGreaterThanOrEqual(8);
  }
  await expectAccessible();

  await issues.nth(0).click();
  await expect(page.getByRole("heading", { name: "Week 3" })).toBeVisible();
  await page.getByRole("link", { name: "All issues of Family news" }).click();
  await issues.nth(2).click();
  await expect(page.getByRole("heading", { name: "Week 1" })).toBeVisible();
  await page.getByRole("link", { name: "All issues of Family news" }).click();

  const archive = page.url();
  await page.getByRole("link", { name: "Unsubscribe" }).click();
  await page.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(page.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();
  await page.goto(archive);
  await expect(
    page.getByRole("heading", { name: 'You unsubscribed from "Family news"' }),
  ).toBeVisible();
  await expect(page.getByRole("list", { name: "Issues, newest first" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Re-subscribe" })).toBeVisible();
});

test("a forged archive link is a plain 404", async ({ page }) => {
  const response = await page.goto("/issues/MTIzOm11bUBleGFtcGxlLmNvbQ.forged");
  expect(response!.status()).toBe(404);
});
