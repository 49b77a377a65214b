import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { signIn, testDb, uniqueEmail } from "../support/accounts";
import { type ReceivedMail, waitForMail } from "../support/mail";

/**
 * Issue 47, part 1, as people live it at 375 px, with JavaScript and without:
 * the sender adds Mum with the folder form, the welcome reaches her through
 * the loopback SMTP server, and from its links, in a browser that knows
 * nobody, she says "Sounds lovely" or "Not for me"; the sender sees which.
 * docs/decisions/0208-a-welcome-before-the-first-issue.md
 */
test.use({ viewport: { width: 375, height: 740 } });

async function createFolderWithMum(page: Page, mum: string) {
  await page.goto("/folders/new");
  const dialog = page.getByRole("dialog", { name: "Folder Details" });
  await dialog.getByLabel("Folder name").fill("Family news");
  await dialog.getByLabel("Recipient 1 name").fill("Mum");
  await dialog.getByLabel("Recipient 1 email").fill(mum);
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/folders\/\d+$/);
  return Number(/\/folders\/(\d+)$/.exec(page.url())![1]);
}

/** The welcome's link for one answer, from the plain-text part as a mail app shows it. */
function answerLink(mail: ReceivedMail, answer: "yes" | "no") {
  const match = new RegExp(`https?://\\S+/w/\\S+\\?answer=${answer}`).exec(mail.text ?? "");
  if (!match) throw new Error(`No "${answer}" link in "${mail.subject}"`);
  return match[0];
}

/** The sender's Recipients dialog of the folder, signed in to `context`. */
async function openRecipients(page: Page, context: BrowserContext, ids: Ids, base: string) {
  await signIn(context, ids.userId, base, testDb());
  await page.goto(`${base}/folders/${ids.folderId}/recipients`);
}

type Ids = { userId: number; folderId: number };

test('from the welcome e-mail, Mum says "Sounds lovely"; the sender sees it', async ({
  page,
  context,
  baseURL,
  login,
  expectAccessible,
}) => {
  const ada = await login({ firstName: "Ada", lastName: "Lovelace" });
  const mum = uniqueEmail("mum");
  const ids = { userId: ada.id, folderId: await createFolderWithMum(page, mum) };

  const welcome = await waitForMail(mum, /Ada Lovelace added you to "Family news"/);
  expect(welcome.text?.replace(/\s+/g, " ")).toMatch(/The first issue comes on \w{3} \d+ \w{3}\./);
  await context.clearCookies();
  await page.goto(answerLink(welcome, "yes"));
  await expect(
    page.getByRole("heading", { level: 1, name: "Ada Lovelace added you to Family news" }),
  ).toBeVisible();
  // The link's own answer, one button: the other is not offered on this page.
  await expect(page.getByRole("button", { name: "Not for me" })).toHaveCount(0);
  await expectAccessible();
  await page.getByRole("button", { name: "Sounds lovely" }).click();
  await expect(
    page.getByRole("heading", { level: 1, name: "You said yes to Family news" }),
  ).toBeVisible();

  await openRecipients(page, context, ids, baseURL!);
  await expect(page.getByText("Said yes to the welcome")).toBeVisible();
});

test('from the welcome e-mail, Mum says "Not for me" and is unsubscribed at once', async ({
  page,
  context,
  baseURL,
  login,
}) => {
  const ada = await login({ firstName: "Ada", lastName: "Lovelace" });
  const mum = uniqueEmail("mum");
  const ids = { userId: ada.id, folderId: await createFolderWithMum(page, mum) };

  const welcome = await waitForMail(mum, /added you to "Family news"/);
  await context.clearCookies();
  await page.goto(answerLink(welcome, "no"));
  await expect(page.getByRole("button", { name: "Sounds lovely" })).toHaveCount(0);
  const notForMe = page.getByRole("button", { name: "Not for me" });
  await expect(notForMe).toBeVisible();

  // Opening the link recorded nothing: the sender sees a welcome, not an unsubscribe.
  const other = await context.browser()!.newContext({ viewport: { width: 375, height: 740 } });
  const senderPage = await other.newPage();
  await openRecipients(senderPage, other, ids, baseURL!);
  await expect(senderPage.getByText(/Welcomed on/)).toBeVisible();

  await notForMe.click();
  await expect(
    page.getByRole("heading", { level: 1, name: "You will not get Family news" }),
  ).toBeVisible();

  await openRecipients(senderPage, other, ids, baseURL!);
  await expect(senderPage.getByText("Unsubscribed", { exact: true })).toBeVisible();
  await other.close();
});
