import type { Page } from "@playwright/test";
import { and, eq } from "drizzle-orm";
import sharp from "sharp";
import { contentItems, waitingReminders } from "#db/schema";
import { createSentLedger } from "#db/sent-issue-factories";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb, uniqueEmail } from "../support/accounts";
import { writeStoredFile } from "../support/items";
import { linkIn, mailsTo, type ReceivedMail, waitForMail } from "../support/mail";
import { expectPictureLoaded } from "../support/pictures";
import { archivePath, unsubscribePath } from "../support/recipient-links";

/**
 * Issue 62, item 6, the family side, at 375 px with JavaScript and without
 * (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md):
 * the welcome greets Dad by the name the sender gave him; when he, the
 * folder's only recipient, says "Not for me", the sender gets one e-mail and
 * the folder's card and page say so with the one next step, which works; the
 * recipient's archive shows each issue's first photo and its items' titles.
 */
test.use({ viewport: { width: 375, height: 740 } });

async function createFolderForDad(page: Page, dad: string) {
  await page.goto("/folders/new");
  const dialog = page.getByRole("dialog", { name: "Folder Details" });
  await dialog.getByLabel("Folder name").fill("Family news");
  await dialog.getByLabel("Recipient 1 name").fill("Dad");
  await dialog.getByLabel("Recipient 1 email").fill(dad);
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/folders\/\d+$/);
  return Number(/\/folders\/(\d+)$/.exec(page.url())![1]);
}

/** The welcome's "Not for me" link, from the plain-text part as a mail app shows it. */
function notForMeLink(mail: ReceivedMail) {
  const match = /https?:\/\/\S+\/w\/\S+\?answer=no/.exec(mail.text ?? "");
  if (!match) throw new Error(`No "Not for me" link in "${mail.subject}"`);
  return match[0];
}

function leftNotices(folderId: number) {
  return testDb()
    .select()
    .from(waitingReminders)
    .where(and(eq(waitingReminders.folderId, folderId), eq(waitingReminders.kind, "left")))
    .all();
}

const NOBODY = /^Nobody gets "Family news" now$/;

test('Dad, the only recipient, says "Not for me": his sender gets one e-mail and the one next step', async ({
  page,
  context,
  baseURL,
  login,
  expectAccessible,
}) => {
  const ada = await login({ firstName: "Ada", lastName: "Lovelace" });
  const dad = uniqueEmail("dad");
  const folderId = await createFolderForDad(page, dad);

  const welcome = await waitForMail(dad, /Ada Lovelace added you to "Family news"/);
  const words = welcome.text?.replace(/\s+/g, " ") ?? "";
  expect(words).toContain("Hi Dad,");
  expect(words).toMatch(/The first issue comes on \w{3} \d+ \w{3}\./);

  // Dad, in a browser that knows nobody.
  await context.clearCookies();
  await page.goto(notForMeLink(welcome));
  await page.getByRole("button", { name: "Not for me" }).click();
  await expect(
    page.getByRole("heading", { level: 1, name: "You will not get Family news" }),
  ).toBeVisible();

  const notice = await waitForMail(ada.email, NOBODY);
  const told = notice.text?.replace(/\s+/g, " ") ?? "";
  expect(told).toContain("Hi Ada,");
  expect(told).toContain('Dad unsubscribed from "Family news"');
  expect(told).not.toMatch(/not for me|not interested/i);
  expect(linkIn(notice, `/folders/${folderId}/edit`)).toBe(`${baseURL}/folders/${folderId}/edit`);
  // His mail app's one-click after the page: he was out already, nothing more to tell.
  const again = await page.request.post(unsubscribePath(folderId, dad), {
    form: { "List-Unsubscribe": "One-Click" },
  });
  expect(again.status()).toBe(200);
  expect(leftNotices(folderId)).toMatchObject([{ status: "sent" }]);
  expect((await mailsTo(ada.email)).filter((mail) => NOBODY.test(mail.subject ?? ""))).toHaveLength(
    1,
  );

  // Ada opens her folder.
  await signIn(context, ada.id, baseURL!, testDb());
  await page.goto(`/folders/${folderId}`);
  const stuck = page.getByRole("region", { name: "Nobody gets this folder now" });
  await expect(stuck).toContainText("Dad unsubscribed.");
  // The Add buttons stay off while everyone is out (docs/product-rules.md): the step gets it going.
  await expect(page.getByRole("link", { name: "Add Link" })).toHaveCount(0);
  const card = page.getByRole("complementary", { name: "My Folders" }).getByRole("listitem");
  await expect(card).toContainText("Dad unsubscribed: nobody gets it now.");
  await expect(card.getByRole("link", { name: "Add a recipient to Family news" })).toBeVisible();
  await expectAccessible();

  await stuck.getByRole("link", { name: "Add a recipient" }).click();
  const dialog = page.getByRole("dialog", { name: "Folder Details" });
  await dialog.getByRole("button", { name: "Add recipient" }).click();
  await dialog.getByLabel("Recipient 2 name").fill("Gran");
  await dialog.getByLabel("Recipient 2 email").fill(uniqueEmail("gran"));
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(new RegExp(`/folders/${folderId}$`));
  await expect(page.getByRole("link", { name: "Add Link" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Nobody gets this folder now" })).toHaveCount(0);
  await expect(card).not.toContainText("nobody gets it now");
});

function photo(width: number, height: number, background: string) {
  return sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .toBuffer();
}

test("the archive shows each issue's first photo and its items' titles", async ({
  page,
  expectAccessible,
}) => {
  const sender = await createUser({ firstName: "Ada", lastName: "Lovelace" });
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(sender.id, {
    name: "Family news",
    recipients: [{ name: "Mum", email: mum }],
  });
  const garden = await photo(1200, 800, "#a60");
  const thumbnail = await photo(300, 200, "#a60");
  const sentAt = new Date();
  const items = testDb()
    .insert(contentItems)
    .values([
      { folderId: folder.id, type: "musing", title: "Sam started school", sentAt, sortOrder: 0 },
      {
        folderId: folder.id,
        type: "photo",
        title: "Our garden",
        filePaths: [writeStoredFile(garden)],
        thumbnailPaths: [writeStoredFile(thumbnail)],
        fileNames: ["garden.jpg"],
        fileSizes: [garden.length],
        mimeTypes: ["image/jpeg"],
        sentAt,
        sortOrder: 1,
      },
    ])
    .returning()
    .all();
  createSentLedger(testDb(), folder.id, {
    itemIds: items.map((item) => item.id),
    copies: [{ email: mum }],
    sentAt,
  });

  await page.goto(archivePath(folder.id, mum));
  const issue = page.getByRole("list", { name: "Issues, newest first" }).getByRole("link");
  await expect(issue).toHaveCount(1);
  await expect(issue).toContainText("Sam started school · Our garden");
  // The thumbnail, from the issue's own signed web-version address.
  const picture = issue.getByRole("img", { name: "Our garden" });
  await expect(picture).toHaveAttribute("src", /^\/v-files\/[^/]+\/\d+\/thumb$/);
  await expectPictureLoaded(picture, 300);
  await expectAccessible();
});
