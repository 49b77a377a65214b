import fs from "node:fs";
import type { BrowserContext, Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { sessions, uploadDrafts } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb } from "../support/accounts";
import { whileDatabaseRefuses } from "../support/database-faults";
import { createItemRow, itemsOf, storedPath } from "../support/items";

const MB = 1024 * 1024;
const WIZARD = "Upload to Multiple Folders";

/** A real JPEG, made with sharp. */
function jpeg(red: number) {
  return sharp({
    create: { width: 64, height: 48, channels: 3, background: { r: red, g: 90, b: 160 } },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
}

function wizard(page: Page) {
  return page.getByRole("dialog", { name: WIZARD });
}

function draftRow(id: string) {
  return testDb().select().from(uploadDrafts).where(eq(uploadDrafts.id, id)).get();
}

/** The draft id in the current address (/upload/<id>/…). */
function draftIdOf(page: Page) {
  return /\/upload\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? "";
}

/** A new sender with the folders "Family" and "Friends", signed in. */
async function signedInWithTwoFolders(context: BrowserContext, baseURL: string) {
  const user = await createUser();
  const family = createFolderRow(user.id, { name: "Family", sortOrder: 0 });
  const friends = createFolderRow(user.id, { name: "Friends", sortOrder: 1 });
  await signIn(context, user.id, baseURL);
  return { family, friends };
}

async function openWizard(page: Page) {
  await page.goto("/");
  await page.getByRole("link", { name: WIZARD }).click();
  await expect(wizard(page).getByRole("heading", { name: WIZARD })).toBeVisible();
}

async function fillLink(page: Page, title: string, url: string) {
  const dialog = wizard(page);
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Link 1", { exact: true }).fill(url);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("For everyone");
  await dialog.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/\/upload\/[0-9a-f]{32}\/folders$/);
}

async function fillPhotos(page: Page, title: string) {
  const dialog = wizard(page);
  await dialog.getByRole("link", { name: "Photo", exact: true }).click();
  await expect(dialog.getByLabel("Photos")).toBeVisible();
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Photos").setInputFiles([
    { name: "beach.jpg", mimeType: "image/jpeg", buffer: await jpeg(200) },
    { name: "hills.jpg", mimeType: "image/jpeg", buffer: await jpeg(40) },
  ]);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Our week away");
  await dialog.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/\/upload\/[0-9a-f]{32}\/folders$/);
}

test.describe("upload to multiple folders", () => {
  // Several steps, uploads and an accessibility scan per test: room for a busy machine.
  test.describe.configure({ timeout: 60_000 });

  test("adds a link to three folders at once", async ({ login, page }) => {
    const user = await login();
    const targets = ["Family", "Friends", "Work"].map((name, index) =>
      createFolderRow(user.id, { name, sortOrder: index }),
    );
    const untouched = createFolderRow(user.id, { name: "Book club", sortOrder: 3 });

    await openWizard(page);
    await fillLink(page, "Good reads", "example.com/read");
    const draftId = draftIdOf(page);
    const dialog = wizard(page);
    await dialog.getByRole("button", { name: "Add to folders" }).click();
    await expect(dialog.getByText("Please select at least one folder")).toBeVisible();
    for (const name of ["Family", "Friends", "Work"]) await dialog.getByLabel(name).check();
    await dialog.getByRole("button", { name: "Add to folders" }).click();

    await expect(page).toHaveURL(`/folders/${targets[0]!.id}`);
    await expect(page.getByText("Added to 3 folders")).toBeVisible();
    for (const folder of targets) {
      const items = itemsOf(folder.id);
      expect(items.map((item) => [item.type, item.title, item.urls, item.commentText])).toEqual([
        ["link", "Good reads", ["https://example.com/read"], "For everyone"],
      ]);
    }
    expect(itemsOf(untouched.id)).toEqual([]);
    expect(draftRow(draftId)).toBeUndefined();
  });

  test("when the database refuses, the draft is kept for another try", async ({
    page,
    context,
    baseURL,
  }) => {
    const { family, friends } = await signedInWithTwoFolders(context, baseURL!);
    await openWizard(page);
    await fillLink(page, "Good reads", "example.com/read");
    const draftId = draftIdOf(page);
    // Only one of the two folders refuses: the draft goes to both or to neither.
    const refused = [`INSERT ON content_items WHEN NEW.folder_id = ${friends.id}`];
    await whileDatabaseRefuses(refused, async () => {
      const dialog = wizard(page);
      for (const name of ["Family", "Friends"]) await dialog.getByLabel(name).check();
      await dialog.getByRole("button", { name: "Add to folders" }).click();
      await expect(dialog.getByText("Failed to add content. Please try again.")).toBeVisible();
      expect(draftRow(draftId)).toBeDefined();
      expect([...itemsOf(family.id), ...itemsOf(friends.id)]).toEqual([]);
    });
    await wizard(page).getByRole("button", { name: "Add to folders" }).click();
    await expect(page.getByText("Added to 2 folders")).toBeVisible();
    expect(itemsOf(friends.id).map((item) => item.title)).toEqual(["Good reads"]);
  });

  test("two photos go to three folders, except the one that is too full", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login();
    const first = createFolderRow(user.id, { name: "Family", sortOrder: 0 });
    const full = createFolderRow(user.id, { name: "Grandparents", sortOrder: 1 });
    const third = createFolderRow(user.id, { name: "Friends", sortOrder: 2 });
    createItemRow(full.id, { type: "file", title: "Big scan", fileSizes: [20 * MB - 10] });

    await openWizard(page);
    await fillPhotos(page, "Holiday");
    const draftId = draftIdOf(page);
    const draftFiles = draftRow(draftId)!.files;
    expect(draftFiles.map((file) => file.name)).toEqual(["beach.jpg", "hills.jpg"]);
    const dialog = wizard(page);
    for (const name of ["Family", "Grandparents", "Friends"]) await dialog.getByLabel(name).check();
    await dialog.getByRole("button", { name: "Next" }).click();

    await expect(page).toHaveURL(`/upload/${draftId}/check`);
    const row = (name: string) => dialog.getByRole("row").filter({ hasText: name });
    await expect(row("Grandparents")).toContainText("No, too full");
    await expect(row("Grandparents").getByRole("link", { name: "Send Now" })).toHaveAttribute(
      "href",
      `/folders/${full.id}`,
    );
    await expect(row("Family")).toContainText("Yes");
    await expect(dialog.getByText("Your account has room for this upload")).toBeVisible();
    await expectAccessible();
    await dialog.getByRole("button", { name: "Upload to 2 valid folders" }).click();

    await expect(page.getByText("Uploaded to 2 folders")).toBeVisible();
    await expect(page.getByText(/Not uploaded to Grandparents/)).toBeVisible();
    await expect(page).toHaveURL(`/upload/${draftId}/check`);
    await expect(row("Grandparents")).toContainText("No, too full");
    await expect(dialog.getByText("No valid folders selected for upload")).toBeVisible();

    const [inFirst] = itemsOf(first.id);
    const [inThird] = itemsOf(third.id);
    expect(inFirst!.fileNames).toEqual(["beach.jpg", "hills.jpg"]);
    // Stored once: both folders' items use the same files.
    expect(inThird!.filePaths).toEqual(inFirst!.filePaths);
    expect(inFirst!.filePaths).toEqual(draftFiles.map((file) => file.key));
    for (const key of inFirst!.filePaths) expect(fs.existsSync(storedPath(key))).toBe(true);
    expect(itemsOf(full.id).map((item) => item.title)).toEqual(["Big scan"]);
    expect(draftRow(draftId)!.folderIds).toEqual([full.id]);

    // Closing the wizard removes the draft; the files stay for the two folders.
    await dialog.getByRole("button", { name: "Cancel and discard" }).click();
    await expect(page.getByText("Upload discarded")).toBeVisible();
    expect(draftRow(draftId)).toBeUndefined();
    for (const key of inFirst!.filePaths) expect(fs.existsSync(storedPath(key))).toBe(true);
  });

  test("on a 375 px phone the folder limits scroll inside their table, not the dialog", async ({
    page,
    context,
    baseURL,
  }) => {
    const user = await createUser();
    // A name with nowhere to break makes the table wider than the phone.
    createFolderRow(user.id, { name: "Greatgrandparentsandgodparentsandcousins", sortOrder: 0 });
    await signIn(context, user.id, baseURL!);
    await page.setViewportSize({ width: 375, height: 812 });

    await openWizard(page);
    await fillPhotos(page, "Holiday");
    const dialog = wizard(page);
    await dialog.getByLabel("Greatgrandparentsandgodparentsandcousins").check();
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(/\/upload\/[0-9a-f]{32}\/check$/);

    await expect(dialog.getByRole("row").filter({ hasText: "Greatgrand" })).toContainText("Yes");
    const overflow = (element: HTMLElement) => element.scrollWidth - element.clientWidth;
    expect(await dialog.evaluate(overflow), "the dialog scrolls sideways").toBeLessThanOrEqual(0);
    const table = dialog.getByRole("region", { name: "Folder limits table" });
    expect(await table.evaluate(overflow), "the table is wider than its region").toBeGreaterThan(0);
    // The region takes focus, so a keyboard scrolls it too.
    await table.focus();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => table.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
  });

  test("a paused folder cannot be selected; Select All skips it", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login();
    const family = createFolderRow(user.id, { name: "Family", sortOrder: 0 });
    const paused = createFolderRow(user.id, {
      name: "On hold",
      sortOrder: 1,
      isPaused: true,
      pauseReason: "user",
    });
    const friends = createFolderRow(user.id, { name: "Friends", sortOrder: 2 });

    await openWizard(page);
    await fillLink(page, "Paused test", "https://example.com/p");
    const dialog = wizard(page);
    await expect(dialog.getByLabel("On hold")).toBeDisabled();
    await expectAccessible();
    await dialog.getByRole("button", { name: "Select All" }).click();
    await expect(dialog.getByText("1 paused folder(s) cannot be selected")).toBeVisible();
    await expect(dialog.getByLabel("Family")).toBeChecked();
    await expect(dialog.getByLabel("Friends")).toBeChecked();
    await expect(dialog.getByLabel("On hold")).not.toBeChecked();

    // A paused id posted by hand is refused too.
    const csrf = await dialog.locator('input[name="csrf"]').first().inputValue();
    const draftId = draftIdOf(page);
    const refused = await page.request.post(`/upload/${draftId}/folders`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      data: new URLSearchParams([
        ["csrf", csrf],
        ["intent", "next"],
        ["folderIds", String(family.id)],
        ["folderIds", String(paused.id)],
      ]).toString(),
    });
    expect(refused.status()).toBe(400);
    expect(itemsOf(paused.id)).toEqual([]);

    await dialog.getByRole("button", { name: "Add to folders" }).click();
    await expect(page.getByText("Added to 2 folders")).toBeVisible();
    expect(itemsOf(family.id)).toHaveLength(1);
    expect(itemsOf(friends.id)).toHaveLength(1);
    expect(itemsOf(paused.id)).toEqual([]);
  });

  test("a refused photo keeps the title typed and starts no draft", async ({ login, page }) => {
    const user = await login();
    createFolderRow(user.id, { name: "Family" });
    await openWizard(page);
    const dialog = wizard(page);
    await dialog.getByRole("link", { name: "Photo", exact: true }).click();
    await expect(dialog.getByLabel("Photos")).toBeVisible();
    await dialog.getByLabel("Title").fill("Summer at the lake");
    await dialog.getByLabel("Photos").setInputFiles({
      name: "lake.jpg",
      mimeType: "image/jpeg",
      buffer: Buffer.from("<!doctype html><html><body>not a photo</body></html>"),
    });
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("The water was warm");
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(wizard(page).getByRole("alert")).toContainText("Upload Failed");
    // The upload stopped at the photo: the title, above it, is kept.
    await expect(wizard(page).getByLabel("Title")).toHaveValue("Summer at the lake");
    expect(page.url()).not.toMatch(/\/upload\/[0-9a-f]{32}\//);
    expect(
      testDb().select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all(),
    ).toEqual([]);
  });

  test("the draft survives a reload between steps", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    const { family, friends } = await signedInWithTwoFolders(context, baseURL!);

    await openWizard(page);
    await fillPhotos(page, "Reloaded");
    const draftId = draftIdOf(page);
    const dialog = wizard(page);
    await page.reload();
    await expect(dialog.getByText("Reloaded · 2 photos")).toBeVisible();

    await dialog.getByRole("link", { name: "Back" }).click();
    await expect(page).toHaveURL(`/upload?draft=${draftId}`);
    await page.reload();
    await expect(dialog.getByLabel("Title")).toHaveValue("Reloaded");
    await expect(dialog.getByRole("textbox", { name: "Comment" })).toHaveValue("Our week away");
    await expect(dialog.getByText("beach.jpg")).toBeVisible();
    await expect(dialog.getByText("hills.jpg")).toBeVisible();
    await expect(dialog.getByText("Choosing new photos replaces these.")).toBeVisible();
    await dialog.getByLabel("Title").fill("Reloaded twice");
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(`/upload/${draftId}/folders`);

    await dialog.getByLabel("Family").check();
    await dialog.getByLabel("Friends").check();
    await dialog.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(`/upload/${draftId}/check`);
    if (javaScriptEnabled) {
      // Every folder can take it: the upload starts by itself after 1.5 s.
      await expect(dialog.getByText("Every folder can take this upload.")).toBeVisible();
    } else {
      await page.reload();
      await expect(dialog.getByRole("row").filter({ hasText: "Friends" })).toContainText("Yes");
      await dialog.getByRole("button", { name: "Upload to 2 folders" }).click();
    }
    await expect(page).toHaveURL(`/folders/${family.id}`);
    await expect(page.getByText("Uploaded to 2 folders")).toBeVisible();
    for (const folder of [family, friends]) {
      expect(itemsOf(folder.id).map((item) => [item.title, item.fileNames.length])).toEqual([
        ["Reloaded twice", 2],
      ]);
    }
    expect(draftRow(draftId)).toBeUndefined();
  });

  test("refuses wrong, foreign and too many folders, and another user's draft", async ({
    login,
    page,
    baseURL,
    browser,
  }) => {
    const user = await login({ subscriptionTier: "premium", subscriptionStatus: "active" });
    const mine = Array.from({ length: 11 }, (_, index) =>
      createFolderRow(user.id, { name: `Folder ${index + 1}`, sortOrder: index }),
    );
    const stranger = await createUser();
    const theirs = createFolderRow(stranger.id, { name: "Not yours" });

    await openWizard(page);
    await fillLink(page, "Refusals", "https://example.com/r");
    const draftId = draftIdOf(page);
    const dialog = wizard(page);
    for (const folder of mine) await dialog.getByLabel(folder.name, { exact: true }).check();
    await dialog.getByRole("button", { name: "Add to folders" }).click();
    await expect(dialog.getByText("Maximum 10 folders allowed")).toBeVisible();

    const csrf = await dialog.locator('input[name="csrf"]').first().inputValue();
    for (const ids of [[String(theirs.id)], ["999999999"], ["abc"], [String(mine[0]!.id), "-1"]]) {
      const response = await page.request.post(`/upload/${draftId}/folders`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        data: new URLSearchParams([
          ["csrf", csrf],
          ["intent", "next"],
          ...ids.map((id) => ["folderIds", id]),
        ]).toString(),
      });
      expect(response.status()).toBe(400);
      expect(await response.text()).toContain("Invalid folder ID");
    }
    expect(draftRow(draftId)!.folderIds).toEqual([]);
    for (const folder of [...mine, theirs]) expect(itemsOf(folder.id)).toEqual([]);

    // The stranger cannot see, change, finish or discard this user's draft.
    const otherContext = await browser.newContext();
    await signIn(otherContext, stranger.id, baseURL!);
    const other = await otherContext.newPage();
    const page404 = await other.goto(`/upload/${draftId}/folders`);
    expect(page404?.status()).toBe(404);
    const theirCsrf = await (await other.goto("/upload"))!
      .text()
      .then((html) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "");
    for (const [path, form] of [
      [`/upload/${draftId}/folders`, { intent: "next", folderIds: String(theirs.id) }],
      [`/upload/${draftId}/check`, { intent: "skip" }],
      [`/upload?index&draft=${draftId}`, { title: "Hijacked", "urls[0]": "https://evil.test" }],
    ] as const) {
      const response = await other.request.post(path, { form: { csrf: theirCsrf, ...form } });
      expect(response.status()).toBe(404);
    }
    await other.request.post(`/upload/${draftId}/discard`, { form: { csrf: theirCsrf } });
    await otherContext.close();
    const after = draftRow(draftId)!;
    expect(after.folderIds).toEqual([]);
    expect(after.fields.title).toBe("Refusals");
    expect(itemsOf(theirs.id)).toEqual([]);
  });

  test.describe("when checking folder limits goes wrong (JavaScript)", () => {
    test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "the check is re-run by script");

    /** Photos for Family (room) and Grandparents (too full): the upload does not start by itself. */
    async function atCheckStep(page: Page, context: BrowserContext, baseURL: string) {
      const user = await createUser();
      const family = createFolderRow(user.id, { name: "Family", sortOrder: 0 });
      const full = createFolderRow(user.id, { name: "Grandparents", sortOrder: 1 });
      createItemRow(full.id, { type: "file", title: "Big scan", fileSizes: [20 * MB - 10] });
      await signIn(context, user.id, baseURL);
      await openWizard(page);
      await fillPhotos(page, "Holiday");
      const dialog = wizard(page);
      for (const name of ["Family", "Grandparents"]) await dialog.getByLabel(name).check();
      await dialog.getByRole("button", { name: "Next" }).click();
      await expect(dialog.getByRole("button", { name: "Upload to 1 valid folder" })).toBeVisible();
      return { user, family, full, dialog, draftId: draftIdOf(page) };
    }

    test("a time-out offers uploading to the folders one by one", async ({
      page,
      context,
      baseURL,
    }) => {
      const { family, full, dialog, draftId } = await atCheckStep(page, context, baseURL!);
      // The check never answers: the wizard gives up after its 10 s.
      await page.route("**/validate", () => {});
      await dialog.getByRole("button", { name: "Check again" }).click();
      await expect(
        dialog.getByText("Sorry about this, but we're having trouble checking folder limits"),
      ).toBeVisible({ timeout: 15_000 });
      const oneByOne = dialog.getByRole("list", { name: "Upload to folders one by one" });
      await expect(oneByOne.getByRole("button")).toHaveText([
        "Upload to Family",
        "Upload to Grandparents",
      ]);
      await oneByOne.getByRole("button", { name: "Upload to Family" }).click();

      await expect(page.getByText("Uploaded to 1 folder")).toBeVisible();
      await expect(page).toHaveURL(`/upload/${draftId}/check`);
      expect(itemsOf(family.id).map((item) => item.fileNames)).toEqual([
        ["beach.jpg", "hills.jpg"],
      ]);
      expect(itemsOf(full.id).map((item) => item.title)).toEqual(["Big scan"]);
      expect(draftRow(draftId)!.folderIds).toEqual([full.id]);
    });

    test("a signed-out user is asked to log in again, in place", async ({
      page,
      context,
      baseURL,
    }) => {
      const { user, dialog, draftId } = await atCheckStep(page, context, baseURL!);
      testDb().delete(sessions).where(eq(sessions.userId, user.id)).run();
      await dialog.getByRole("button", { name: "Check again" }).click();

      await expect(dialog.getByRole("alert")).toContainText("Please log in again to continue.");
      await expect(page).toHaveURL(`/upload/${draftId}/check`);
      await expect(dialog.getByRole("link", { name: "Log in" })).toHaveAttribute(
        "href",
        `/login?redirectTo=${encodeURIComponent(`/upload/${draftId}/check`)}`,
      );
    });
  });
});
