import type { Locator, Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { apiTokens, users } from "#db/schema";
import { expect, test } from "../fixtures";
import { confirmWithPassword, createFolderRow, foldersOf, testDb } from "../support/accounts";
import { createItemRow, itemsOf } from "../support/items";

/**
 * Enter in a field saves the form, on a phone, with and without JavaScript: rows are added
 * and removed only by their own buttons (docs/decisions/0127-enter-presses-the-main-button.md).
 * Each test presses Enter in each kind of field of one form and reads what was saved.
 */
test.use({ viewport: { width: 375, height: 740 } });

const TWO_PEOPLE = [
  { name: "Ann", email: "ann@example.com" },
  { name: "Ben", email: "ben@example.com" },
];
const FIVE_LINKS = [1, 2, 3, 4, 5].map((n) => `https://example.com/${n}`);

function field(scope: Locator, label: string) {
  return scope.getByLabel(label, { exact: true });
}

/** Types into a field, then presses Enter in it. */
async function enterIn(scope: Locator, label: string, value: string) {
  await field(scope, label).fill(value);
  await field(scope, label).press("Enter");
}

/** Fills the link fields, adding each after the first with its own button. */
async function fillLinks(dialog: Locator, urls: string[]) {
  for (const [index, url] of urls.entries()) {
    if (index > 0) await dialog.getByRole("button", { name: "Add another link" }).click();
    await field(dialog, `Link ${index + 1}`).fill(url);
  }
}

async function leaveAComment(dialog: Locator, text: string) {
  await dialog.getByLabel("Leave a comment").check();
  await field(dialog, "Comment").fill(text);
}

test("folder form: Enter in a recipient's name, an e-mail, the folder name or a checkbox saves every recipient", async ({
  login,
  page,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Two people", recipients: TWO_PEOPLE });
  const saved = () => foldersOf(user.id)[0]!;

  for (const [label, value] of [
    ["Recipient 1 name", "Annie"],
    ["Recipient 2 email", "benjamin@example.com"],
    ["Folder name", "Two dear people"],
  ] as const) {
    await page.goto(`/folders/${folder.id}/edit`);
    await enterIn(page.getByRole("dialog", { name: "Folder Details" }), label, value);
    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}$`));
  }
  await page.goto(`/folders/${folder.id}/edit`);
  const copyToMe = page
    .getByRole("dialog", { name: "Folder Details" })
    .getByLabel(/Send me a copy/);
  await copyToMe.check();
  await copyToMe.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}$`));
  expect(saved().ccSender).toBe(true);
  expect(saved().name).toBe("Two dear people");
  expect(saved().recipients).toEqual([
    { name: "Annie", email: "ann@example.com" },
    { name: "Ben", email: "benjamin@example.com" },
  ]);
});

test("folder form: Enter in the only recipient's e-mail creates the folder, adding no row", async ({
  login,
  page,
}) => {
  const user = await login();
  await page.goto("/folders/new");
  const dialog = page.getByRole("dialog", { name: "Folder Details" });
  await field(dialog, "Folder name").fill("Mum");
  await field(dialog, "Recipient 1 name").fill("Mum");
  await enterIn(dialog, "Recipient 1 email", "mum@example.com");
  await expect(page.getByText("Folder created successfully!")).toBeVisible();
  expect(foldersOf(user.id).map((folder) => [folder.name, folder.recipients])).toEqual([
    ["Mum", [{ name: "Mum", email: "mum@example.com" }]],
  ]);
});

test("link form: Enter in the fifth link saves all five; item edit: Enter in Title keeps them", async ({
  login,
  page,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Reading" });
  await page.goto(`/folders/${folder.id}/add/link`);
  const add = page.getByRole("dialog", { name: "Add Link" });
  await field(add, "Title").fill("Five reads");
  await leaveAComment(add, "For the weekend");
  await fillLinks(add, FIVE_LINKS);
  await field(add, "Link 5").press("Enter");
  await expect(page.getByText("Content added successfully!")).toBeVisible();
  const [item] = itemsOf(folder.id);
  expect([item?.title, item?.urls]).toEqual(["Five reads", FIVE_LINKS]);

  await page.goto(`/folders/${folder.id}/items/${item!.id}/edit`);
  await enterIn(page.getByRole("dialog", { name: "Edit Link" }), "Title", "Five good reads");
  await expect(page.getByText("Changes saved")).toBeVisible();
  expect(itemsOf(folder.id).map((saved) => [saved.title, saved.urls])).toEqual([
    ["Five good reads", FIVE_LINKS],
  ]);
});

test("item edit: Enter in Title or on a radio button saves a link item with two links, keeping both", async ({
  login,
  page,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Reading" });
  const urls = FIVE_LINKS.slice(0, 2);
  const item = createItemRow(folder.id, {
    type: "link",
    title: "Two reads",
    urls,
    addComment: true,
    commentText: "Both short",
  });
  await page.goto(`/folders/${folder.id}/items/${item.id}/edit`);
  await enterIn(page.getByRole("dialog", { name: "Edit Link" }), "Title", "Two short reads");
  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-${item.id}$`));
  expect(itemsOf(folder.id).map((saved) => [saved.title, saved.urls])).toEqual([
    ["Two short reads", urls],
  ]);

  await page.goto(`/folders/${folder.id}/items/${item.id}/edit`);
  const hopeForAReply = page.getByRole("radio", { name: /^Yes/ });
  await hopeForAReply.check();
  await hopeForAReply.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-${item.id}$`));
  expect(itemsOf(folder.id).map((saved) => [saved.responseExpectation, saved.urls])).toEqual([
    ["expecting", urls],
  ]);
});

test("upload wizard: Enter in Title goes on with both links; Enter on a folder adds to that folder only", async ({
  login,
  page,
}) => {
  const user = await login();
  const chosen = createFolderRow(user.id, { name: "Chosen", sortOrder: 0 });
  const other = createFolderRow(user.id, { name: "Other", sortOrder: 1 });
  const urls = FIVE_LINKS.slice(0, 2);
  await page.goto("/upload?type=link");
  const wizard = page.getByRole("dialog", { name: "Upload to Multiple Folders" });
  await fillLinks(wizard, urls);
  await leaveAComment(wizard, "Have a look");
  await enterIn(wizard, "Title", "Two reads");
  await expect(page).toHaveURL(/\/upload\/[^/]+\/folders$/);
  await expect(wizard.getByText("Link: Two reads")).toBeVisible();

  const checkbox = wizard.getByRole("checkbox", { name: "Chosen" });
  await checkbox.check();
  await checkbox.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/folders/${chosen.id}$`));
  expect(itemsOf(chosen.id).map((item) => [item.title, item.urls])).toEqual([["Two reads", urls]]);
  expect(itemsOf(other.id)).toEqual([]);
});

test("API token form: Enter in Name creates the token", async ({ login, page }) => {
  const user = await login();
  await page.goto("/profile/tokens");
  await confirmWithPassword(page);
  await enterIn(page.getByRole("dialog", { name: "New API token" }), "Name", "Phone shortcut");
  await expect(page.getByRole("dialog", { name: "Your new API token" })).toBeVisible();
  const names = testDb()
    .select({ name: apiTokens.name })
    .from(apiTokens)
    .where(eq(apiTokens.userId, user.id))
    .all();
  expect(names).toEqual([{ name: "Phone shortcut" }]);
});

test("profile form: Enter in a name field saves the profile", async ({ login, page }) => {
  const user = await login();
  await page.goto("/profile");
  const personal = page.getByRole("region", { name: "Personal information" });
  await enterIn(personal, "First name", "Ada");
  await expect(page.getByText("Profile updated")).toBeVisible();
  await enterIn(personal, "Last name", "Lovelace");
  await expect(page.getByText("Profile updated")).toBeVisible();
  await expect
    .poll(() =>
      testDb()
        .select({ firstName: users.firstName, lastName: users.lastName })
        .from(users)
        .where(eq(users.id, user.id))
        .get(),
    )
    .toEqual({ firstName: "Ada", lastName: "Lovelace" });
});

/**
 * Forms in which Enter, from a field, would press something else than the main button: a form
 * with several submit buttons and a field Enter can be pressed in, whose first submit button
 * (the one Enter presses) is not the form's <DefaultSubmit>.
 */
function formsWhereEnterMissesTheMainButton(page: Page) {
  return page.evaluate(() => {
    const NOT_ENTERABLE = ["hidden", "submit", "button", "reset", "image", "file"];
    return [...document.forms].flatMap((form) => {
      const controls = [...form.elements];
      const submits = controls.filter(
        (control) =>
          (control instanceof HTMLButtonElement || control instanceof HTMLInputElement) &&
          control.type === "submit",
      );
      const enterable = controls.some(
        (control) => control instanceof HTMLInputElement && !NOT_ENTERABLE.includes(control.type),
      );
      const first = submits[0];
      if (submits.length < 2 || !enterable || first?.hasAttribute("data-default-submit")) return [];
      return [`${location.pathname}: Enter presses "${first?.textContent?.trim()}"`];
    });
  });
}

test("every form with rows' or other buttons starts with the button Enter should press", async ({
  login,
  page,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Two people", recipients: TWO_PEOPLE });
  createFolderRow(user.id, { name: "Other" });
  const link = createItemRow(folder.id, {
    type: "link",
    title: "Two reads",
    urls: FIVE_LINKS.slice(0, 2),
    addComment: true,
    commentText: "Both short",
  });
  const musing = createItemRow(folder.id, { title: "A thought" });

  await page.goto("/upload?type=link");
  const wizard = page.getByRole("dialog", { name: "Upload to Multiple Folders" });
  await fillLinks(wizard, FIVE_LINKS.slice(0, 2));
  await leaveAComment(wizard, "Have a look");
  await field(wizard, "Title").fill("Two reads");
  await wizard.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/\/upload\/[^/]+\/folders$/);
  const wizardFolders = new URL(page.url()).pathname;

  const misses: string[] = [];
  for (const path of [
    "/",
    "/folders/new",
    `/folders/${folder.id}`,
    `/folders/${folder.id}/edit`,
    ...["link", "musing", "photo", "file"].map((type) => `/folders/${folder.id}/add/${type}`),
    `/folders/${folder.id}/items/${link.id}/edit`,
    `/folders/${folder.id}/items/${musing.id}/edit`,
    ...["link", "musing", "photo", "file"].map((type) => `/upload?type=${type}`),
    wizardFolders,
    `/add/${folder.id}?extension=true&url=${encodeURIComponent(FIVE_LINKS[0]!)}`,
    `/folders/${folder.id}/recipients`,
    "/invite",
    "/profile",
    "/profile/branding",
    "/profile/two-factor",
  ]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    misses.push(...(await formsWhereEnterMissesTheMainButton(page)));
  }
  // With several links, the link form has a Remove button per link before Save.
  await page.goto(`/folders/${folder.id}/add/link`);
  await page.getByRole("button", { name: "Add another link" }).click();
  await expect(page.getByRole("button", { name: "Remove link 2" })).toBeVisible();
  misses.push(...(await formsWhereEnterMissesTheMainButton(page)));
  expect(misses).toEqual([]);
});

test("a Skip to content link comes first and moves on to the page's main content", async ({
  login,
  page,
}) => {
  for (const signedIn of [false, true]) {
    if (signedIn) await login();
    await page.goto("/");
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    const box = await skip.boundingBox();
    expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/#main$/);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.closest("main")?.id)).toBe("main");
  }
});
