import type { Page } from "@playwright/test";
import sharp from "sharp";
import { contentItems, sendLedger, sendLedgerRecipients } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb, uniqueEmail } from "../support/accounts";
import { writeStoredFile } from "../support/items";
import { expectPictureLoaded } from "../support/pictures";

/**
 * "Save", the archive of sent issues (docs/decisions/0149-save-is-the-archive.md),
 * on a phone and a desktop, with and without JavaScript (the two projects).
 * Sent issues are written into the database as a finished send leaves them.
 */

async function picture(colour: string) {
  const jpeg = await sharp({
    create: { width: 40, height: 30, channels: 3, background: colour },
  })
    .jpeg()
    .toBuffer();
  return writeStoredFile(jpeg);
}

function sendIssue(
  folderId: number,
  sentAt: Date,
  items: (typeof contentItems.$inferInsert)[],
  recipients: string[],
) {
  const rows = testDb()
    .insert(contentItems)
    .values(
      items.map((item, index) => ({
        ...item,
        folderId,
        sentAt,
        sortOrder: index,
      })),
    )
    .returning()
    .all();
  const ledger = testDb()
    .insert(sendLedger)
    .values({
      folderId,
      occurrenceKey: `send-now:${sentAt.toISOString()}:${folderId}`,
      trigger: "send_now",
      status: "sent",
      itemIds: rows.map((row) => row.id),
      completedAt: sentAt,
    })
    .returning()
    .get();
  testDb()
    .insert(sendLedgerRecipients)
    .values(
      recipients.map((email) => ({
        ledgerId: ledger.id,
        email,
        status: "sent" as const,
      })),
    )
    .run();
  return ledger;
}

/** Two folders, one issue each: a photo to the family, a link with its preview to a friend. */
async function twoFoldersSent(userId: number) {
  const mum = uniqueEmail("mum");
  const gran = uniqueEmail("gran");
  const friend = uniqueEmail("friend");
  const family = createFolderRow(userId, {
    name: "Family",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Gran", email: gran },
    ],
  });
  const walks = createFolderRow(userId, {
    name: "Walks",
    recipients: [{ name: "Sam Friend", email: friend }],
  });
  const photoKey = await picture("#0a0");
  const previewKey = await picture("#00a");
  const now = Date.now();
  const photoIssue = sendIssue(
    family.id,
    new Date(now - 2 * 86_400_000),
    [
      {
        folderId: family.id,
        type: "photo",
        title: "Our garden",
        filePaths: [photoKey],
        thumbnailPaths: [""],
        fileNames: ["garden.jpg"],
        fileSizes: [100],
        mimeTypes: ["image/jpeg"],
      },
    ],
    [mum, gran],
  );
  const linkIssue = sendIssue(
    walks.id,
    new Date(now - 86_400_000),
    [
      {
        folderId: walks.id,
        type: "link",
        title: "Coast path",
        urls: ["https://example.com/coast"],
        addComment: true,
        commentText: "The stretch we talked about",
        previewStatus: "ready",
        previewTitle: "The coast path, mile by mile",
        previewSiteName: "Walking Guide",
        previewImageKey: previewKey,
      },
    ],
    [friend],
  );
  return { family, walks, photoIssue, linkIssue, mum, friend };
}

async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, "pixels of sideways scrolling").toBeLessThanOrEqual(0);
}

async function expectLoaded(page: Page, name: string) {
  await expectPictureLoaded(page.getByRole("img", { name }), 40);
}

const currentTab = (page: Page) =>
  page.getByRole("navigation", { name: "Views" }).locator('[aria-current="page"]');

for (const viewport of [
  { name: "phone", width: 375, height: 740 },
  { name: "desktop", width: 1280, height: 800 },
]) {
  test.describe(`the archive on a ${viewport.width} px ${viewport.name}`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("lists issues across folders, filters by folder, and opens an issue with names, comments and pictures", async ({
      page,
      login,
      expectAccessible,
    }) => {
      const user = await login();
      const { walks } = await twoFoldersSent(user.id);

      await page.goto("/");
      await expect(currentTab(page)).toHaveText("Share");
      await page
        .getByRole("navigation", { name: "Views" })
        .getByRole("link", { name: "Save" })
        .click();
      await expect(page).toHaveURL(/\/save$/);
      await expect(currentTab(page)).toHaveText("Save");
      await expect(page.getByText("Coming Soon")).toHaveCount(0);

      // Newest first, from both folders, each with its first picture and who it went to.
      const issues = page.getByRole("article");
      await expect(issues).toHaveCount(2);
      await expect(issues.nth(0)).toContainText("From “Walks” to Sam Friend");
      await expect(issues.nth(1)).toContainText("From “Family” to Mum, Gran");
      await expect(issues.nth(1)).toContainText("1 item · 2 delivered");
      await expectLoaded(page, "The coast path, mile by mile");
      await expectLoaded(page, "garden.jpg");
      await expect(page.getByText(/With Premium you see how many/)).toBeVisible();
      await expectNoSidewaysScroll(page);
      await expectAccessible();

      await page.getByLabel("Folder").selectOption({ label: "Walks" });
      await page.getByRole("button", { name: "Show" }).click();
      await expect(page).toHaveURL(new RegExp(`/save\\?folder=${walks.id}$`));
      await expect(issues).toHaveCount(1);
      await expect(issues.first()).toContainText("From “Walks”");
      await expect(page.getByLabel("Folder")).toHaveValue(String(walks.id));

      await issues.first().getByRole("link").click();
      const issue = page.getByRole("dialog", { name: /^Sent / });
      await expect(issue.getByRole("heading", { level: 4, name: "Coast path" })).toBeVisible();
      await expect(issue.getByText("The stretch we talked about")).toBeVisible();
      await expect(issue.getByText("Walking Guide")).toBeVisible();
      await expectLoaded(page, "The coast path, mile by mile");
      await expect(issue.getByRole("row", { name: /^Sam Friend friend/ })).toBeVisible();
      await expect(currentTab(page)).toHaveText("Save");
      await expectNoSidewaysScroll(page);

      await issue.getByRole("link", { name: "Back to Save" }).click();
      await expect(page).toHaveURL(/\/save$/);
      await expect(issues).toHaveCount(2);
    });

    test("marks the current tab on the dashboard, a folder and its sent issues", async ({
      page,
      login,
    }) => {
      const user = await login();
      const { family, photoIssue } = await twoFoldersSent(user.id);
      await page.goto(`/folders/${family.id}`);
      await expect(currentTab(page)).toHaveText("Share");
      await page.goto(`/folders/${family.id}/sent`);
      await expect(currentTab(page)).toHaveText("Save");
      await page.goto(`/folders/${family.id}/sent/${photoIssue.id}`);
      await expect(currentTab(page)).toHaveText("Save");
      const issue = page.getByRole("dialog", { name: /^Sent / });
      await expect(issue.getByRole("row", { name: /^Mum mum/ })).toBeVisible();
      await expect(issue.getByRole("link", { name: "Back to Sent" })).toBeVisible();
      await page.goto("/profile");
      await expect(currentTab(page)).toHaveCount(0);
    });
  });
}

test("shows only the user's own issues, whatever folder is asked for", async ({ page, login }) => {
  const owner = await login();
  const { family } = await twoFoldersSent(owner.id);
  await login();
  await page.goto(`/save?folder=${family.id}`);
  await expect(page.getByRole("article")).toHaveCount(0);
  await expect(page.getByText("Nothing sent yet.")).toBeVisible();
  await expect(page.getByRole("option", { name: "Family" })).toHaveCount(0);
});
