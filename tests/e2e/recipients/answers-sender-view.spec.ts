import type { Page } from "@playwright/test";
import { createAnswer, createSentIssue } from "#db/sent-issue-factories";
import { expect, test } from "../fixtures";
import { createFolderRow, foldersOf, testDb } from "../support/accounts";
import { openMoreMenu } from "../support/folder-screen";

/**
 * What the sender sees of their recipients' hearts and notes (issue #37;
 * docs/decisions/0164-answers-seen-on-the-save-tab.md), with and without
 * JavaScript: the answers are written straight into the database as the
 * answer page leaves them.
 */
const ANN = { name: "Ann", email: "ann@example.com" };
const BOB = { name: "Bob", email: "bob@example.com" };
/** Someone the issue went to who is no longer on the folder's list: shown by address. */
const CAROL = "carol@example.com";
const HOSTILE_NOTE = "Made it twice!\n  Lovely <b>soup</b> & <script>alert(1)</script>";

function answeredIssue(userId: number) {
  const folder = createFolderRow(userId, { name: "Family", recipients: [ANN, BOB] });
  const quiet = createSentIssue(testDb(), folder.id, {
    titles: ["Nobody answered this"],
    emails: [ANN.email],
    sentAt: new Date(Date.now() - 3 * 86_400_000),
  });
  const { ledger, items, copies } = createSentIssue(testDb(), folder.id, {
    titles: ["Our garden", "Soup recipe"],
    emails: [ANN.email, BOB.email, CAROL],
    sentAt: new Date(Date.now() - 86_400_000),
  });
  const [garden, soup] = items as [(typeof items)[number], (typeof items)[number]];
  const [ann, bob, carol] = copies as [
    (typeof copies)[number],
    (typeof copies)[number],
    (typeof copies)[number],
  ];
  const on = { userId, folderId: folder.id };
  createAnswer(testDb(), { ...on, copy: ann, itemId: garden.id });
  createAnswer(testDb(), { ...on, copy: bob, itemId: garden.id });
  createAnswer(testDb(), { ...on, copy: carol, itemId: garden.id, body: "So green" });
  createAnswer(testDb(), { ...on, copy: ann, itemId: soup.id, body: HOSTILE_NOTE });
  return { folder, ledger, quiet: quiet.ledger };
}

const newAnswersLink = (page: Page) => page.getByRole("link", { name: /new answers?$/ });

test("the sender sees who hearted and wrote what, per item, and the new-answer count clears on opening Save", async ({
  page,
  login,
  expectAccessible,
}) => {
  const user = await login();
  const { folder, ledger, quiet } = answeredIssue(user.id);

  await page.goto("/");
  await expect(newAnswersLink(page)).toHaveText("♥ 4 new answers");
  await newAnswersLink(page).click();
  await expect(page).toHaveURL(/\/save$/);
  await expect(
    page.getByText("4 new answers from your recipients since you last looked."),
  ).toBeVisible();
  const answered = page.getByRole("article").filter({ has: page.getByText("♥ 2 · 2 notes") });
  await expect(answered).toHaveCount(1);
  await expect(answered.getByText("♥ 2 · 2 notes · 4 new")).toBeVisible();
  const quietCard = page.getByRole("article").filter({ hasNot: page.getByText(/♥/) });
  await expect(quietCard).toHaveCount(1);
  await expectAccessible();

  // Seen now: the dashboard no longer counts them, and Save no longer calls them new.
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Family" })).toBeVisible();
  await expect(newAnswersLink(page)).toHaveCount(0);
  await page.goto("/save");
  await expect(page.getByText(/since you last looked/)).toHaveCount(0);
  await expect(page.getByText(/♥ 2 · 2 notes$/)).toBeVisible();

  await page.getByRole("article").filter({ hasText: "♥ 2" }).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}/sent/${ledger.id}\\?from=save$`));
  const garden = page.getByRole("region", { name: "Answers to Our garden" });
  await expect(garden.getByText("♥ 2 — Ann, Bob")).toBeVisible();
  await expect(garden.getByRole("listitem")).toHaveCount(1);
  await expect(garden.getByRole("listitem")).toContainText(CAROL);
  await expect(garden.getByRole("listitem")).toContainText("So green");

  const soup = page.getByRole("region", { name: "Answers to Soup recipe" });
  await expect(soup.getByText(/^♥/)).toHaveCount(0);
  const note = soup.getByRole("listitem");
  await expect(note).toContainText("Ann ·");
  // The note as typed: its markup shown as text, its line break and spaces kept.
  expect(await note.locator("p").nth(1).innerText()).toBe(HOSTILE_NOTE);
  await expect(note.locator("b, script")).toHaveCount(0);
  await expect(note.getByRole("link", { name: "Reply to Ann" })).toHaveAttribute(
    "href",
    "mailto:ann@example.com?subject=Re%3A%20Soup%20recipe",
  );
  await expectAccessible();

  // The folder's own Sent list shows the totals too; an issue without answers shows none.
  await page.goto(`/folders/${folder.id}/sent`);
  await expect(page.getByText(/♥ 2 · 2 notes$/)).toBeVisible();
  await page.goto(`/folders/${folder.id}/sent/${quiet.id}`);
  await expect(page.getByRole("heading", { name: "Nobody answered this" })).toBeVisible();
  await expect(page.getByRole("region", { name: /^Answers to/ })).toHaveCount(0);
});

test("the folder's settings choose how answers come by e-mail; Enter on a choice saves it", async ({
  page,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family", recipients: [ANN] });
  const saved = () => foldersOf(user.id)[0]!.answerEmails;

  await page.goto(`/folders/${folder.id}`);
  await openMoreMenu(page);
  await page.getByRole("link", { name: "Folder Settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Folder Details" });
  const choices = dialog.getByRole("group", { name: "Answers from your recipients by e-mail" });
  await expect(choices.getByRole("radio", { name: "Once a day, gathered" })).toBeChecked();
  await choices.getByRole("radio", { name: "Each note at once" }).check();
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Folder settings updated successfully!")).toBeVisible();
  expect(saved()).toBe("each");

  await page.goto(`/folders/${folder.id}/edit`);
  await expect(choices.getByRole("radio", { name: "Each note at once" })).toBeChecked();
  const none = choices.getByRole("radio", { name: "Don't e-mail me" });
  await none.check();
  await none.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}$`));
  expect(saved()).toBe("none");
});
