import { eq } from "drizzle-orm";
import { folders } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";
import { openMoreMenu } from "../support/folder-screen";

/**
 * Skip the next issue and undo it from the folder's More menu, on a phone
 * (docs/decisions/0213-skip-the-next-issue.md). The folder goes on Sundays for
 * a sender in London; its next issue, Sunday 31 October 2027 at 00:01 BST, is
 * skipped for Sunday 7 November at 00:01 GMT, across the clocks going back.
 * What the scheduler then does (nothing on the skipped day, one send on the
 * next) is in tests/integration/skip-next-issue.test.ts.
 */
test.use({ viewport: { width: 375, height: 740 } });

const SKIPPED = "2027-10-30T23:01:00.000Z";
const MOVED = "2027-11-07T00:01:00.000Z";

test("the next issue is skipped to the Sunday after, named, and brought back", async ({
  page,
  login,
  expectAccessible,
}) => {
  const user = await login({ timeZone: "Europe/London" });
  const folder = createFolderRow(user.id, {
    name: "Family news",
    frequency: "weekly",
    dayOfWeek: 7,
    nextSendAt: new Date(SKIPPED),
  });
  const clock = () => testDb().select().from(folders).where(eq(folders.id, folder.id)).get()!;
  const detail = page.locator("section[aria-labelledby=folder-heading]");

  await page.goto(`/folders/${folder.id}`);
  await expect(detail.getByText("Sun 31 Oct")).toBeVisible();
  await openMoreMenu(page);
  await detail.getByRole("button", { name: "Skip Next Issue" }).click();
  await expect(page.getByText("Sun 31 Oct skipped").first()).toBeVisible();
  await expect(page.getByText('The next issue of "Family news" goes on Sun 7 Nov.')).toBeVisible();
  await expect(detail.getByText("Sun 7 Nov", { exact: true })).toBeVisible();
  expect(clock().nextSendAt!.toISOString()).toBe(MOVED);
  expect(clock().skippedSendAt!.toISOString()).toBe(SKIPPED);
  await expectAccessible();

  await openMoreMenu(page);
  await detail.getByRole("button", { name: "Undo Skip (Sun 31 Oct)" }).click();
  await expect(page.getByText("Skip undone")).toBeVisible();
  await expect(
    page.getByText('The next issue of "Family news" goes on Sun 31 Oct again.'),
  ).toBeVisible();
  await expect(detail.getByText("Sun 31 Oct", { exact: true })).toBeVisible();
  expect(clock().nextSendAt!.toISOString()).toBe(SKIPPED);
  expect(clock().skippedSendAt).toBeNull();
});

test("a paused folder offers no skip", async ({ page, login }) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Garden", isPaused: true, pauseReason: "user" });
  await page.goto(`/folders/${folder.id}`);
  await openMoreMenu(page);
  await expect(page.getByRole("button", { name: "Skip Next Issue" })).toBeDisabled();
});
