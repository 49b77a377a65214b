import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { hydrated } from "../support/hydrated";
import { createItemRows, itemsOf } from "../support/items";

/**
 * Issue 62's small frictions of saving a link, at 375 px, with JavaScript and without
 * (docs/decisions/0250-zod-without-its-jit-and-shares-land-on-their-item.md): a title read
 * from one address does not stay on another, and a shared link lands on its own card.
 */
test.use({ viewport: { width: 375, height: 740 } });

/** A page of the loopback site whose title is "NAME only" (tests/support/preview-pages.ts). */
const page = (name: string) => `${process.env.E2E_PREVIEW_ORIGIN}/plain/${name}`;

/** The Add Link sheet the share sheet opens on a folder, with what was shared. */
function sharedTo(folderId: number, shared: { url: string; title?: string }) {
  return `/add/${folderId}?${new URLSearchParams({ extension: "true", ...shared })}`;
}

async function addFrom(browser: Page, folderName: string) {
  const dialog = browser.getByRole("dialog", { name: `Add Link to ${folderName}` });
  await expect(dialog).toBeVisible();
  return dialog;
}

test("a shared link lands on its card, highlighted and in view", async ({
  page: browser,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Reading" });
  createItemRows(folder.id, 3);
  await browser.goto(sharedTo(folder.id, { url: page("harbour-walk"), title: "Harbour walk" }));
  const dialog = await addFrom(browser, "Reading");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(browser.getByText("Content captured from browser!")).toBeVisible();
  const [, , , shared] = itemsOf(folder.id);
  expect(shared).toMatchObject({ title: "Harbour walk", urls: [page("harbour-walk")] });
  await expect(browser).toHaveURL(new RegExp(`/folders/${folder.id}#item-${shared!.id}$`));
  const card = browser.locator(`#item-${shared!.id}`);
  await expect(card).toBeInViewport();
  await expect
    .poll(() => card.evaluate((element) => element.matches(":target, [data-landed]")))
    .toBe(true);
});

test("the title that came with a share goes when the sender puts another address", async ({
  page: browser,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Reading" });
  const shared = { url: page("bbc-storm"), title: "Storm on the coast" };

  await browser.goto(sharedTo(folder.id, shared));
  let dialog = await addFrom(browser, "Reading");
  await expect(dialog.getByLabel("Title")).toHaveValue("Storm on the coast");
  await dialog.getByLabel("Link 1", { exact: true }).fill(page("nyt-storm"));
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(browser.getByText("Content captured from browser!")).toBeVisible();

  // A title the sender typed stays with whatever address they put.
  await browser.goto(sharedTo(folder.id, shared));
  dialog = await addFrom(browser, "Reading");
  await dialog.getByLabel("Title").fill("Two storms, two papers");
  await dialog.getByLabel("Link 1", { exact: true }).fill(page("guardian-storm"));
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(browser.getByText("Content captured from browser!")).toBeVisible();

  expect(itemsOf(folder.id).map((item) => [item.title, item.urls])).toEqual([
    ["nyt-storm only", [page("nyt-storm")]],
    ["Two storms, two papers", [page("guardian-storm")]],
  ]);
});

test("in the folder's Add Link the title follows the address until the sender types one", async ({
  page: browser,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Reading" });
  const dialog = browser.getByRole("dialog", { name: "Add Link" });
  const title = dialog.getByLabel("Title");
  const address = dialog.getByLabel("Link 1", { exact: true });
  const comment = dialog.getByRole("textbox", { name: "Comment" });
  await browser.goto(`/folders/${folder.id}/add/link`);
  await hydrated(browser, javaScriptEnabled);

  await address.fill(page("first-find"));
  if (javaScriptEnabled) await expect(title).toHaveValue("first-find only");
  await address.fill(page("better-find"));
  // With JavaScript the field shows the new page's title; without, the server reads it at save.
  if (javaScriptEnabled) await expect(title).toHaveValue("better-find only");
  await comment.fill("For the weekend");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(browser).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));

  await browser.goto(`/folders/${folder.id}/add/link`);
  await hydrated(browser, javaScriptEnabled);
  await address.fill(page("third-find"));
  if (javaScriptEnabled) await expect(title).toHaveValue("third-find only");
  await title.fill("My own words");
  await address.fill(page("fourth-find"));
  await comment.fill("For the weekend");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(browser).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));

  expect(itemsOf(folder.id).map((item) => [item.title, item.urls])).toEqual([
    ["better-find only", [page("better-find")]],
    ["My own words", [page("fourth-find")]],
  ]);
});
