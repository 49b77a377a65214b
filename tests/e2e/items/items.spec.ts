import crypto from "node:crypto";
import fs from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { asc, eq } from "drizzle-orm";
import sharp from "sharp";
import { securityRejections } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb } from "../support/accounts";
import { whileDatabaseRefuses } from "../support/database-faults";
import { openMoreMenu } from "../support/folder-screen";
import {
  createItemRow,
  createItemRows,
  itemsOf,
  storedFiles,
  storedPath,
  strayFilesSince,
  writeStoredFile,
} from "../support/items";

const MB = 1024 * 1024;
const MISSING_FIELDS =
  "Invalid content data: missing required fields based on content type and options";
const CHOOSE_AN_OPTION = "Please select at least one option: Leave a comment or Ask a question";

/** A real JPEG with EXIF, including GPS coordinates, as a phone would write it. */
function jpegWithGps(width: number, height: number, red: number) {
  return sharp({ create: { width, height, channels: 3, background: { r: red, g: 120, b: 200 } } })
    .withExif({
      IFD0: { Make: "TestCam", Model: "Phone 1" },
      IFD3: {
        GPSLatitudeRef: "N",
        GPSLatitude: "51/1 30/1 0/1",
        GPSLongitudeRef: "W",
        GPSLongitude: "0/1 7/1 0/1",
      },
    })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** About 300 KB of noise that stays large once re-encoded. */
function noisyJpeg() {
  const width = 700;
  const height = 500;
  return sharp(crypto.randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** A minimal but well-formed PDF. */
function pdf(text: string) {
  const body = [
    "%PDF-1.4",
    "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
    "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj",
    "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj",
    `% ${text}`,
    "trailer << /Root 1 0 R >>",
    "%%EOF",
  ].join("\n");
  return Buffer.from(body, "latin1");
}

async function openDialog(page: Page, linkName: string, title: string) {
  await page.getByRole("link", { name: linkName, exact: true }).click();
  const dialog = page.getByRole("dialog", { name: title });
  await expect(dialog.getByRole("heading", { name: title })).toBeVisible();
  return dialog;
}

async function submit(dialog: Locator, name = "Add") {
  await dialog.getByRole("button", { name, exact: true }).click();
}

/** Polls until no file is left in storage that appeared since `before` without an item row. */
async function expectNoStrayFiles(before: Set<string>) {
  await expect.poll(() => strayFilesSince(before), { timeout: 5000 }).toEqual([]);
}

/** Marks the page's document: a document load drops the mark, a client-side navigation keeps it. */
async function markDocument(page: Page) {
  await page.evaluate(() => {
    (window as unknown as { sameDocument?: boolean }).sameDocument = true;
  });
}

/** Whether the document marked by `markDocument` is still the one shown. */
function stayedInDocument(page: Page) {
  return page.evaluate(
    () => (window as unknown as { sameDocument?: boolean }).sameDocument === true,
  );
}

function itemCard(page: Page, title: string) {
  return page
    .getByRole("region", { name: "Saved items" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { level: 3, name: title }) });
}

test.describe("content items", () => {
  test("adds a link after fixing bad input", async ({ login, page, expectAccessible }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Family" });
    const group = createFolderRow(user.id, {
      name: "Cousins",
      sortOrder: 1,
      recipients: [
        { name: "Ann", email: "ann@example.com" },
        { name: "Ben", email: "ben@example.com" },
        { name: "Cat", email: "cat@example.com" },
      ],
    });
    await page.goto(`/folders/${folder.id}`);

    const dialog = await openDialog(page, "Add Link", "Add Link");
    await expect(dialog.getByText("Do you expect a reply from Mum?")).toBeVisible();
    // "Leave a comment" starts open and a link's title is the app's to fill
    // (docs/decisions/0199-the-app-fills-what-it-knows.md): the links and the comment are asked for.
    await expect(dialog.getByLabel("Leave a comment")).toBeChecked();
    await submit(dialog);
    await expect(dialog.getByText(MISSING_FIELDS)).toHaveCount(2);
    await expect(dialog.getByText("Title is required")).toHaveCount(0);
    await expectAccessible();
    await dialog.getByLabel("Leave a comment").uncheck();
    await submit(dialog);
    await expect(dialog.getByText(CHOOSE_AN_OPTION)).toBeVisible();

    await dialog.getByLabel("Title").fill("Good reads");
    await dialog.getByLabel("Link 1", { exact: true }).fill("not a url");
    await submit(dialog);
    await expect(dialog.getByText("Invalid URL format")).toBeVisible();
    await expect(dialog.getByLabel("Title")).toHaveValue("Good reads");
    await expect(dialog.getByLabel("Link 1", { exact: true })).toHaveValue("not a url");

    await dialog.getByLabel("Link 1", { exact: true }).fill("javascript:alert(1)");
    await submit(dialog);
    await expect(dialog.getByText("Invalid URL format")).toBeVisible();
    await expect(dialog.getByLabel("Link 1", { exact: true })).toHaveValue("javascript:alert(1)");
    expect(itemsOf(folder.id)).toEqual([]);

    await dialog.getByLabel("Link 1", { exact: true }).fill("https://example.com/one");
    await dialog.getByRole("button", { name: "Add another link" }).click();
    await expect(dialog.getByLabel("Link 2", { exact: true })).toBeVisible();
    await expect(dialog.getByLabel("Link 1", { exact: true })).toHaveValue(
      "https://example.com/one",
    );
    await expect(dialog.getByLabel("Title")).toHaveValue("Good reads");
    await dialog.getByLabel("Link 2", { exact: true }).fill("https://example.org/two");
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("  Worth a look  ");
    await dialog.getByRole("radio", { name: /^Yes/ }).check();
    await submit(dialog);

    await expect(page.getByText("Content added successfully!")).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    const card = itemCard(page, "Good reads");
    await expect(card.getByRole("link", { name: "https://example.com/one" })).toBeVisible();
    await expect(card.getByRole("link", { name: "https://example.org/two" })).toBeVisible();
    await expect(card.getByText("Worth a look")).toBeVisible();
    const [item] = itemsOf(folder.id);
    expect(item).toMatchObject({
      type: "link",
      title: "Good reads",
      urls: ["https://example.com/one", "https://example.org/two"],
      addComment: true,
      askQuestion: false,
      commentText: "Worth a look",
      questionText: null,
      responseExpectation: "expecting",
    });

    await page.getByRole("link", { name: "Edit Good reads" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Link" });
    await expect(edit.getByRole("heading", { name: "Edit Link" })).toBeVisible();
    await expect(edit.getByLabel("Link 2", { exact: true })).toHaveValue("https://example.org/two");
    await expect(edit.getByLabel("Leave a comment")).toBeChecked();
    await expect(edit.getByRole("textbox", { name: "Comment" })).toHaveValue("Worth a look");
    await expect(edit.getByRole("radio", { name: /^Yes/ })).toBeChecked();
    await edit.getByRole("button", { name: "Remove link 1" }).click();
    await expect(edit.getByLabel("Link 2", { exact: true })).toHaveCount(0);
    await expect(edit.getByLabel("Link 1", { exact: true })).toHaveValue("https://example.org/two");
    await edit.getByRole("radio", { name: /^None/ }).check();
    await submit(edit, "Save");
    await expect(page.getByText("Changes saved")).toBeVisible();
    await expect(card.getByRole("link", { name: "https://example.com/one" })).toHaveCount(0);
    expect(itemsOf(folder.id)).toMatchObject([
      { urls: ["https://example.org/two"], responseExpectation: "not_expecting" },
    ]);

    await page.goto(`/folders/${group.id}/add/link`);
    await expect(
      page
        .getByRole("dialog", { name: "Add Link" })
        .getByText("Do you expect a reply from this group?"),
    ).toBeVisible();
  });

  test("Enter and Tab add a link field and move into it, up to five", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "Keys adding fields is JavaScript; without it, Add another link");
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Keys" });
    await page.goto(`/folders/${folder.id}`);
    const dialog = await openDialog(page, "Add Link", "Add Link");
    const link = (n: number) => dialog.getByLabel(`Link ${n}`, { exact: true });

    // Not a URL: Enter adds nothing (and does not submit) and says so; typing clears it.
    await link(1).fill("not a url");
    await link(1).press("Enter");
    await expect(dialog.getByText("Please enter a valid URL")).toBeVisible();
    await expect(link(2)).toHaveCount(0);
    await expect(dialog).toBeVisible();
    await link(1).fill("https://example.com/1");
    await expect(dialog.getByText("Please enter a valid URL")).toHaveCount(0);
    await link(1).press("Tab");
    await expect(link(2)).toBeFocused();
    // Tab from an empty last field moves on instead of adding one.
    await link(2).press("Tab");
    await expect(dialog.getByRole("button", { name: "Remove link 2" })).toBeFocused();
    await expect(link(3)).toHaveCount(0);
    await link(2).fill("https://example.com/2");
    await link(2).press("Enter");
    await expect(link(3)).toBeFocused();
    // Shift+Tab goes back, as always.
    await link(3).fill("https://example.com/3");
    await link(3).press("Shift+Tab");
    await expect(dialog.getByRole("button", { name: "Remove link 2" })).toBeFocused();
    await expect(link(4)).toHaveCount(0);
    await link(3).press("Tab");
    await expect(link(4)).toBeFocused();
    await link(4).fill("https://example.com/4");
    await link(4).press("Enter");
    await expect(link(5)).toBeFocused();
    await expect(dialog.getByText("Maximum of 5 links reached")).toBeVisible();
    await link(5).fill("https://example.com/5");
    await link(5).press("Tab");
    await expect(link(6)).toHaveCount(0);
    await expect(link(5)).toHaveValue("https://example.com/5");
  });

  test("adds a musing", async ({ login, page, javaScriptEnabled }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    await page.goto(`/folders/${folder.id}`);

    const dialog = await openDialog(page, "Add Musings", "Add Musing");
    await expect(dialog.getByText("Do you expect a reply")).toHaveCount(0);
    await submit(dialog);
    await expect(dialog.getByText("Title is required")).toBeVisible();
    await expect(dialog.getByText(MISSING_FIELDS)).toBeVisible();

    await dialog.getByLabel("Title").fill("Thinking of you");
    const note = dialog.getByLabel("Note");
    await expect(note).toHaveAttribute("maxlength", "1000");
    await note.fill("a".repeat(1000));
    await note.press("End");
    await note.pressSequentially("bcd");
    await expect(note).toHaveValue("a".repeat(1000));
    if (javaScriptEnabled) await expect(dialog.getByText("1000/1000")).toBeVisible();
    await note.fill("The garden is in bloom.");
    await submit(dialog);

    await expect(page.getByText("Content added successfully!")).toBeVisible();
    await expect(
      itemCard(page, "Thinking of you").getByText("The garden is in bloom."),
    ).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      { type: "musing", title: "Thinking of you", note: "The garden is in bloom." },
    ]);

    await page.getByRole("link", { name: "Edit Thinking of you" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Item" });
    await expect(edit.getByRole("heading", { name: "Edit Item" })).toBeVisible();
    await expect(edit.getByLabel("Note")).toHaveValue("The garden is in bloom.");
    await edit.getByLabel("Note").fill("");
    await submit(edit, "Save");
    await expect(edit.getByText(MISSING_FIELDS)).toBeVisible();
    await edit.getByLabel("Note").fill("The roses are out.");
    await submit(edit, "Save");
    await expect(page.getByText("Changes saved")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([{ note: "The roses are out." }]);
  });

  test("when the database refuses, adding and editing keep what was typed", async ({
    login,
    page,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    createItemRow(folder.id, { type: "musing", title: "Earlier", note: "The first note." });
    const refused = [
      `INSERT ON content_items WHEN NEW.folder_id = ${folder.id}`,
      `UPDATE OF note ON content_items WHEN OLD.folder_id = ${folder.id}`,
    ];
    await whileDatabaseRefuses(refused, async () => {
      await page.goto(`/folders/${folder.id}`);
      const dialog = await openDialog(page, "Add Musings", "Add Musing");
      await dialog.getByLabel("Title").fill("Thinking of you");
      await dialog.getByLabel("Note").fill("The garden is in bloom.");
      await submit(dialog);
      await expect(dialog.getByRole("alert")).toContainText("Failed to add musing");
      await expect(dialog.getByLabel("Title")).toHaveValue("Thinking of you");
      await expect(dialog.getByLabel("Note")).toHaveValue("The garden is in bloom.");

      await page.goto(`/folders/${folder.id}`);
      await page.getByRole("link", { name: "Edit Earlier" }).click();
      const edit = page.getByRole("dialog", { name: "Edit Item" });
      await edit.getByLabel("Note").fill("A better note.");
      await submit(edit, "Save");
      await expect(edit.getByRole("alert")).toContainText("Failed to update musing");
      await expect(edit.getByLabel("Note")).toHaveValue("A better note.");
      expect(itemsOf(folder.id)).toMatchObject([{ title: "Earlier", note: "The first note." }]);
    });
  });

  test("a photo named by its camera is titled by its day, not IMG 2041", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "Without JavaScript the sender types the title");
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Holiday" });
    await page.goto(`/folders/${folder.id}`);
    const dialog = await openDialog(page, "Add Photos", "Add Photo");
    await dialog
      .getByLabel("Photos")
      .setInputFiles([
        { name: "IMG_2041.jpg", mimeType: "image/jpeg", buffer: await jpegWithGps(400, 300, 90) },
      ]);
    await expect(dialog.getByLabel("Title")).toHaveValue(
      /^Photo, (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}$/,
    );
  });

  test("adds photos: resized, without EXIF, with thumbnails", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Holiday" });
    const originals = await Promise.all([
      jpegWithGps(2000, 1000, 200),
      jpegWithGps(2000, 1000, 40),
    ]);
    expect((await sharp(originals[0]).metadata()).exif).toBeDefined();
    const before = storedFiles();
    await page.goto(`/folders/${folder.id}`);

    const dialog = await openDialog(page, "Add Photos", "Add Photo");
    await dialog.getByLabel("Title").fill("Beach day");
    await dialog.getByLabel("Photos").setInputFiles([
      { name: "beach.jpg", mimeType: "image/jpeg", buffer: originals[0] },
      { name: "sunset.jpg", mimeType: "image/jpeg", buffer: originals[1] },
    ]);
    await dialog.getByLabel("Ask a question").check();
    await dialog.getByRole("textbox", { name: "Question" }).fill("Remember this?");
    await submit(dialog);

    await expect(page.getByText("Content added successfully!")).toBeVisible();
    await expect(page.getByText("2 photos added")).toBeVisible();
    const card = itemCard(page, "Beach day");
    const thumbnails = card.getByRole("img");
    await expect(thumbnails).toHaveCount(2);
    await expect(card.getByRole("img", { name: "beach.jpg" })).toBeVisible();
    for (const thumbnail of await thumbnails.all()) {
      const src = await thumbnail.getAttribute("src");
      const response = await page.request.get(src!);
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toBe("image/jpeg");
      const meta = await sharp(await response.body()).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(320);
      if (javaScriptEnabled) {
        await expect
          .poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth))
          .toBeGreaterThan(0);
      }
    }

    const full = await card.getByRole("link", { name: "beach.jpg" }).getAttribute("href");
    expect(full).toMatch(/^\/files\/[0-9a-f]{32}$/);
    const response = await page.request.get(full!);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toBe("image/jpeg");
    const meta = await sharp(await response.body()).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1600, 800]);
    expect(meta.exif).toBeUndefined();

    const [item] = itemsOf(folder.id);
    expect(item).toMatchObject({
      type: "photo",
      fileNames: ["beach.jpg", "sunset.jpg"],
      mimeTypes: ["image/jpeg", "image/jpeg"],
      askQuestion: true,
      questionText: "Remember this?",
    });
    const keys = [...item!.filePaths, ...item!.thumbnailPaths];
    expect(new Set(keys).size).toBe(4);
    for (const key of keys) expect(fs.existsSync(storedPath(key))).toBe(true);
    expect(item!.fileSizes).toEqual(
      item!.filePaths.map((key) => fs.statSync(storedPath(key)).size),
    );
    // The originals (with their GPS position) are gone: only the four files remain.
    await expectNoStrayFiles(before);
  });

  test("adds an iPhone's HEIC photo: a JPEG without its GPS", async ({ login, page }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Holiday" });
    const heic = fs.readFileSync("tests/fixtures/photo-with-gps.heic");
    const before = storedFiles();
    await page.goto(`/folders/${folder.id}`);

    const dialog = await openDialog(page, "Add Photos", "Add Photo");
    await expect(dialog.getByText("(JPEG, PNG, GIF, WebP or HEIC)")).toBeVisible();
    await dialog.getByLabel("Title").fill("Pier");
    await dialog
      .getByLabel("Photos")
      .setInputFiles([{ name: "IMG_2041.HEIC", mimeType: "image/heic", buffer: heic }]);
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("From my phone");
    await submit(dialog);

    await expect(page.getByText("Content added successfully!")).toBeVisible();
    const card = itemCard(page, "Pier");
    await expect(card.getByRole("img", { name: "IMG_2041.jpg" })).toBeVisible();
    const full = await card.getByRole("link", { name: "IMG_2041.jpg" }).getAttribute("href");
    const response = await page.request.get(full!);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toBe("image/jpeg");
    const meta = await sharp(await response.body()).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 480, 360]);
    expect(meta.exif).toBeUndefined();
    const [item] = itemsOf(folder.id);
    expect(item).toMatchObject({
      type: "photo",
      fileNames: ["IMG_2041.jpg"],
      mimeTypes: ["image/jpeg"],
    });
    await expectNoStrayFiles(before);
  });

  test("editing a photo item counts the photos it still takes, one or more", async ({
    login,
    page,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Holiday" });
    const image = await sharp({
      create: { width: 8, height: 8, channels: 3, background: "#cc8844" },
    })
      .jpeg()
      .toBuffer();
    const keys = [writeStoredFile(image), writeStoredFile(image)];
    createItemRow(folder.id, {
      type: "photo",
      title: "Two of us",
      fileNames: ["a.jpg", "b.jpg"],
      filePaths: keys,
      fileSizes: [image.length, image.length],
      mimeTypes: ["image/jpeg", "image/jpeg"],
      thumbnailPaths: keys,
      addComment: true,
      commentText: "Look",
    });
    await page.goto(`/folders/${folder.id}`);
    await page.getByRole("link", { name: "Edit Two of us" }).click();
    const edit = page.getByRole("dialog", { name: "Edit Photo" });
    await expect(edit.getByText("Up to 1 more photo (JPEG, PNG, GIF, WebP or HEIC)")).toBeVisible();
  });

  test("adds files, removes one while editing and saves the title", async ({ login, page }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Paperwork" });
    await page.goto(`/folders/${folder.id}`);

    const add = await openDialog(page, "Add Files", "Add File");
    await add.getByLabel("Title").fill("Minutes");
    await add.getByLabel("Files").setInputFiles([
      { name: "notes.pdf", mimeType: "application/pdf", buffer: pdf("notes") },
      { name: "minutes.pdf", mimeType: "application/pdf", buffer: pdf("minutes of the meeting") },
    ]);
    await add.getByLabel("Leave a comment").check();
    await add.getByRole("textbox", { name: "Comment" }).fill("For the record");
    await submit(add);
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    await expect(page.getByText("2 files added")).toBeVisible();
    const card = itemCard(page, "Minutes");
    await expect(card.getByRole("link", { name: "notes.pdf" })).toBeVisible();
    const download = await page.request.get(
      (await card.getByRole("link", { name: "minutes.pdf" }).getAttribute("href"))!,
    );
    expect(download.status()).toBe(200);
    expect(download.headers()["content-type"]).toBe("application/pdf");
    expect(download.headers()["content-disposition"]).toMatch(/^attachment;/);
    expect(await download.body()).toEqual(pdf("minutes of the meeting"));
    const [added] = itemsOf(folder.id);
    const removedKey = added!.filePaths[0]!;

    await page.getByRole("link", { name: "Edit Minutes" }).click();
    const edit = page.getByRole("dialog", { name: "Edit File" });
    await expect(edit.getByRole("heading", { name: "Edit File" })).toBeVisible();
    const current = edit.getByRole("region", { name: "Current files" });
    await expect(current.getByText("notes.pdf")).toBeVisible();
    await expect(current.getByText("minutes.pdf")).toBeVisible();
    await expect(edit.getByLabel("Title")).toHaveValue("Minutes");
    await expect(edit.getByLabel("Leave a comment")).toBeChecked();

    await current.getByRole("button", { name: "Remove notes.pdf" }).click();
    await expect(page.getByText("File removed")).toBeVisible();
    await expect(current.getByText("notes.pdf")).toHaveCount(0);
    await expect(current.getByText("minutes.pdf")).toBeVisible();
    await expect(current.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
    expect(fs.existsSync(storedPath(removedKey))).toBe(false);

    const csrf = await edit.locator('input[name="csrf"]').first().inputValue();
    const refused = await page.request.post(`/folders/${folder.id}/item-actions`, {
      form: { csrf, intent: "remove-file", itemId: String(added!.id), fileIndex: "0" },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(302);
    expect(itemsOf(folder.id)[0]?.fileNames).toEqual(["minutes.pdf"]);

    await edit.getByLabel("Title").fill("Meeting minutes");
    await submit(edit, "Save");
    await expect(page.getByText("Changes saved")).toBeVisible();
    await expect(page.getByRole("heading", { level: 3, name: "Meeting minutes" })).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([
      {
        title: "Meeting minutes",
        fileNames: ["minutes.pdf"],
        addComment: true,
        commentText: "For the record",
      },
    ]);
  });

  test("reorders and deletes items", async ({ login, page }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Order" });
    createItemRow(folder.id, { title: "First", sortOrder: 0 });
    createItemRow(folder.id, { title: "Second", sortOrder: 1 });
    await page.goto(`/folders/${folder.id}`);

    const titles = page
      .getByRole("region", { name: "Saved items" })
      .getByRole("heading", { level: 3 });
    await expect(titles).toHaveText(["First", "Second"]);
    await expect(page.getByRole("button", { name: "Move First up" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Move Second down" })).toBeDisabled();
    await page.getByRole("button", { name: "Move First down" }).click();
    await expect(page.getByText("Item moved")).toBeVisible();
    await expect(titles).toHaveText(["Second", "First"]);
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["Second", "First"]);
    await expect(page.getByRole("button", { name: "Move Second up" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Move First down" })).toBeDisabled();

    await page.getByRole("button", { name: "Delete Second" }).click();
    await expect(page.getByText("Item deleted")).toBeVisible();
    await expect(titles).toHaveText(["First"]);
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["First"]);
  });

  test("the dashboard's links open dialogs in place with JavaScript, as pages without", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Links" });
    createItemRow(folder.id, { title: "Long read", sortOrder: 0 });
    await page.goto(`/folders/${folder.id}`);
    await markDocument(page);
    await page.getByRole("link", { name: "Edit Long read" }).click();
    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}/items/\\d+/edit$`));
    await expect(page.getByRole("heading", { name: "Edit Item" })).toBeVisible();
    expect(await stayedInDocument(page)).toBe(javaScriptEnabled);
  });

  test("the dashboard's forms post in place with JavaScript, as whole pages without", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Forms" });
    createItemRow(folder.id, { title: "First", sortOrder: 0 });
    createItemRow(folder.id, { title: "Second", sortOrder: 1 });
    await page.goto(`/folders/${folder.id}`);
    await markDocument(page);
    await page.getByRole("button", { name: "Move First down" }).click();
    await expect(page.getByText("Item moved")).toBeVisible();
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["Second", "First"]);
    expect(await stayedInDocument(page)).toBe(javaScriptEnabled);

    await page.goto(`/folders/${folder.id}`);
    await markDocument(page);
    await openMoreMenu(page);
    await page
      .locator("section[aria-labelledby=folder-heading]")
      .getByRole("button", { name: "Pause Delivery" })
      .click();
    await expect(page.getByText("Delivery paused")).toBeVisible();
    expect(await stayedInDocument(page)).toBe(javaScriptEnabled);
  });

  test("paginates 51 items and steps back when the last page empties", async ({ login, page }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Lots" });
    createItemRows(folder.id, 51);
    const list = page.getByRole("region", { name: "Saved items" });
    const titles = list.getByRole("heading", { level: 3 });

    await page.goto(`/folders/${folder.id}`);
    await expect(page.getByText("Page 1 of 2")).toBeVisible();
    await expect(titles).toHaveCount(50);
    await expect(page.getByRole("link", { name: "Previous", exact: true })).toHaveCount(0);
    await page.getByRole("link", { name: "Next", exact: true }).click();
    await expect(page.getByText("Page 2 of 2")).toBeVisible();
    await expect(titles).toHaveText(["Item 51"]);
    await expect(page.getByRole("button", { name: "Move Item 51 down" })).toBeDisabled();

    await page.getByRole("button", { name: "Delete Item 51" }).click();
    await expect(page.getByText("Item deleted")).toBeVisible();
    await expect(titles).toHaveCount(50);
    await expect(titles.first()).toHaveText("Item 1");
    await expect(page.getByText(/Page \d of \d/)).toHaveCount(0);

    createItemRow(folder.id, { title: "Item 52", sortOrder: 60 });
    await page.goto(`/folders/${folder.id}?page=7`);
    await expect(page.getByText("Page 2 of 2")).toBeVisible();
    await expect(titles).toHaveText(["Item 52"]);
    await page.goto(`/folders/${folder.id}?page=-3`);
    await expect(page.getByText("Page 1 of 2")).toBeVisible();
  });

  test("refuses disguised and dangerous uploads and stores nothing", async ({ login, page }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Guarded" });
    const before = storedFiles();
    const executable = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(4096, 0x90)]);
    const html = Buffer.from("<!doctype html><html><body><script>alert(1)</script></body></html>");
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="5"/></svg>',
    );
    const attempts = [
      {
        button: "Add Files",
        title: "Add File",
        field: "Files",
        name: "report.pdf",
        mime: "application/pdf",
        buffer: executable,
      },
      {
        button: "Add Photos",
        title: "Add Photo",
        field: "Photos",
        name: "photo.jpg",
        mime: "image/jpeg",
        buffer: html,
      },
      {
        button: "Add Photos",
        title: "Add Photo",
        field: "Photos",
        name: "drawing.svg",
        mime: "image/svg+xml",
        buffer: svg,
      },
    ];
    for (const attempt of attempts) {
      await page.goto(`/folders/${folder.id}`);
      const dialog = await openDialog(page, attempt.button, attempt.title);
      await dialog.getByLabel("Title").fill("Sneaky");
      await dialog.getByLabel(attempt.field).setInputFiles({
        name: attempt.name,
        mimeType: attempt.mime,
        buffer: attempt.buffer,
      });
      await dialog.getByLabel("Leave a comment").check();
      await dialog.getByRole("textbox", { name: "Comment" }).fill("Open me");
      await submit(dialog);
      const alert = dialog.getByRole("alert");
      await expect(alert).toContainText("Upload Failed");
      await expect(alert).toContainText(`"${attempt.name}" is not an allowed`);
    }
    expect(itemsOf(folder.id)).toEqual([]);
    const rejections = testDb()
      .select()
      .from(securityRejections)
      .where(eq(securityRejections.userId, user.id))
      .orderBy(asc(securityRejections.id))
      .all();
    expect(rejections.map((row) => [row.originalFilename, row.threatType])).toEqual([
      ["report.pdf", "executable"],
      ["photo.jpg", "script"],
      ["drawing.svg", "script"],
    ]);
    await expectNoStrayFiles(before);
  });

  test("refuses a file over 10 MB with File Too Large and stores nothing", async ({
    login,
    page,
    javaScriptEnabled,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Guarded" });
    const before = storedFiles();
    await page.goto(`/folders/${folder.id}`);
    const dialog = await openDialog(page, "Add Files", "Add File");
    await dialog.getByLabel("Title").fill("Huge");
    await dialog.getByLabel("Files").setInputFiles({
      name: "huge.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.concat([pdf("huge"), Buffer.alloc(11 * MB, 0x20)]),
    });
    if (javaScriptEnabled) {
      // The browser names the file at once and keeps it out of the form; the
      // server's own refusal of the same upload is this test's [no-js] run.
      await expect(dialog.getByRole("alert")).toHaveText(
        "huge.pdf is too large. Maximum file size is 10MB.",
      );
      await expect(dialog.getByRole("list", { name: "Ready to upload" })).toHaveCount(0);
      expect(itemsOf(folder.id)).toEqual([]);
      await expectNoStrayFiles(before);
      return;
    }
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("Big one");
    await submit(dialog);
    await expect(dialog.getByRole("alert")).toContainText("File Too Large");
    await expect(dialog.getByRole("alert")).toContainText("Maximum file size is 10MB.");
    // The upload stopped at the file: the title, above it, is kept.
    await expect(dialog.getByLabel("Title")).toHaveValue("Huge");
    expect(itemsOf(folder.id)).toEqual([]);
    await expectNoStrayFiles(before);
  });

  test("a full folder refuses a photo with Storage Full! and stores nothing", async ({
    login,
    page,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Nearly full" });
    createItemRow(folder.id, {
      type: "file",
      title: "Big archive",
      note: null,
      filePaths: [crypto.randomBytes(16).toString("hex")],
      fileNames: ["archive.pdf"],
      fileSizes: [Math.round(19.9 * MB)],
      mimeTypes: ["application/pdf"],
      addComment: true,
      commentText: "Old",
    });
    const photo = await noisyJpeg();
    expect(photo.length).toBeGreaterThan(250 * 1024);
    const before = storedFiles();
    await page.goto(`/folders/${folder.id}`);

    const dialog = await openDialog(page, "Add Photos", "Add Photo");
    await dialog.getByLabel("Title").fill("One more");
    await dialog
      .getByLabel("Photos")
      .setInputFiles({ name: "noise.jpg", mimeType: "image/jpeg", buffer: photo });
    await dialog.getByLabel("Leave a comment").check();
    await dialog.getByRole("textbox", { name: "Comment" }).fill("Look");
    await submit(dialog);
    await expect(dialog.getByRole("alert")).toContainText("Storage Full!");
    await expect(dialog.getByRole("alert")).toContainText("Send Now");
    await expect(dialog.getByLabel("Title")).toHaveValue("One more");
    await expect(dialog.getByLabel("Leave a comment")).toBeChecked();
    await expect(dialog.getByRole("textbox", { name: "Comment" })).toHaveValue("Look");
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["Big archive"]);
    await expectNoStrayFiles(before);
  });

  test("another user's items and files answer 404, and so do crafted file paths", async ({
    page,
    context,
    baseURL,
    browser,
  }) => {
    const owner = await createUser();
    const theirFolder = createFolderRow(owner.id, { name: "Private" });
    const key = writeStoredFile(pdf("private"));
    const theirs = createItemRow(theirFolder.id, {
      type: "file",
      title: "Diary",
      note: null,
      filePaths: [key],
      fileNames: ["diary.pdf"],
      fileSizes: [pdf("private").length],
      mimeTypes: ["application/pdf"],
      addComment: true,
      commentText: "Secret",
    });
    const ownerContext = await browser.newContext({ baseURL });
    try {
      await signIn(ownerContext, owner.id, baseURL!);
      expect((await ownerContext.request.get(`/files/${key}`)).status()).toBe(200);
    } finally {
      await ownerContext.close();
    }

    const intruder = await createUser();
    const mine = createFolderRow(intruder.id, { name: "Mine" });
    await signIn(context, intruder.id, baseURL!);
    for (const path of [
      `/folders/${theirFolder.id}/items/${theirs.id}/edit`,
      `/folders/${mine.id}/items/${theirs.id}/edit`,
    ]) {
      expect((await page.goto(path))?.status()).toBe(404);
    }
    for (const path of [
      `/files/${key}`,
      "/files/..%2f..%2fetc%2fpasswd",
      "/files/%2e%2e%5cwindows",
      "/files/abc%00",
      `/files/${key}%00`,
    ]) {
      const response = await page.request.get(path, { maxRedirects: 0 });
      expect(response.status(), path).toBe(404);
    }

    await page.goto(`/folders/${mine.id}`);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    for (const [folderId, form] of [
      [theirFolder.id, { intent: "delete", itemId: String(theirs.id) }],
      [mine.id, { intent: "delete", itemId: String(theirs.id) }],
      [mine.id, { intent: "remove-file", itemId: String(theirs.id), fileIndex: "0" }],
    ] as const) {
      const response = await page.request.post(`/folders/${folderId}/item-actions`, {
        form: { csrf, ...form },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(404);
    }
    const response = await page.request.post(`/folders/${theirFolder.id}/items/${theirs.id}/edit`, {
      multipart: { csrf, title: "Hijacked", addComment: "on", commentText: "x" },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(404);
    expect(itemsOf(theirFolder.id)).toMatchObject([{ title: "Diary", filePaths: [key] }]);
    expect(fs.existsSync(storedPath(key))).toBe(true);
  });
});
