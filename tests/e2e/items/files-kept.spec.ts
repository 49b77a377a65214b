import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import sharp, { type Exif } from "sharp";
import { uploadDrafts } from "#db/schema";
import { tinyClip } from "#tests/support/video-clips";
import { formatDay } from "~/platform/dates";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";
import { itemsOf, storedPath } from "../support/items";

/**
 * Issue 62: no file is lost to a form error, with JavaScript or without
 * (docs/decisions/0248-the-server-fills-a-photos-title-and-keeps-refused-files.md). Without
 * JavaScript the server titles a photo or clip sent without a title as the share page does, and
 * a form refused for another reason keeps its files on the server, named in the form; with
 * JavaScript the browser titles it as it is chosen, and a refusal leaves the files chosen.
 */
test.use({ viewport: { width: 375, height: 740 } });

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "files-kept-e2e-"));
test.afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

const CHOOSE_AN_OPTION = "Please select at least one option: Leave a comment or Ask a question";

async function jpeg(exif?: Exif) {
  const picture = sharp({ create: { width: 60, height: 40, channels: 3, background: "#c84" } });
  return (exif ? picture.jpeg().withExif(exif) : picture.jpeg()).toBuffer();
}

const draftsOf = (userId: number) =>
  testDb().select().from(uploadDrafts).where(eq(uploadDrafts.userId, userId)).all();

/** The stored file is on the disk, not only named in a row. */
const isStored = (key: string | undefined) => Boolean(key) && fs.existsSync(storedPath(key!));

test("a photo sent without a title is saved, titled by the day it was taken", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "For Mum" });
  await page.goto(`/folders/${folder.id}/add/photo`);
  const dialog = page.getByRole("dialog", { name: "Add Photo" });
  // Named by its camera; its EXIF says it was taken on Saturday 1 June 2019.
  await dialog.getByLabel("Photos").setInputFiles({
    name: "IMG_2041.jpg",
    mimeType: "image/jpeg",
    buffer: await jpeg({ IFD2: { DateTimeOriginal: "2019:06:01 10:00:00" } }),
  });
  // With JavaScript the browser fills the title as the photo is chosen (by the file's own
  // date); without, it stays empty and nobody types one.
  const title = dialog.getByLabel("Title");
  await expect(title).toHaveValue(javaScriptEnabled ? /^Photo, / : "");
  const filledInBrowser = await title.inputValue();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Remember this?");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(page.getByText("Content added successfully!")).toBeVisible();
  const [item] = itemsOf(folder.id);
  expect(item).toMatchObject({
    type: "photo",
    title: javaScriptEnabled ? filledInBrowser : "Photo, Sat 1 Jun 2019",
    fileNames: ["IMG_2041.jpg"],
    commentText: "Remember this?",
  });
  expect(isStored(item!.filePaths[0])).toBe(true);
});

test("a clip sent without a title is saved, titled by the day in the sender's zone", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  // Fourteen hours ahead of UTC: most of the day, its date is not the server's.
  const timeZone = "Pacific/Kiritimati";
  const user = await login({ timeZone });
  const folder = createFolderRow(user.id, { name: "For Mum" });
  await page.goto(`/folders/${folder.id}/add/video`);
  const dialog = page.getByRole("dialog", { name: "Add Video" });
  await dialog.getByLabel("Video").setInputFiles(tinyClip(directory));
  const title = dialog.getByLabel("Title");
  await expect(title).toHaveValue(javaScriptEnabled ? /^Video, / : "");
  const filledInBrowser = await title.inputValue();
  const before = new Date();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("First steps");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`), {
    timeout: 30_000,
  });
  const days = [before, new Date()].map(
    (day) => `Video, ${formatDay(day, timeZone, { year: false })}`,
  );
  const [item] = itemsOf(folder.id);
  expect(item).toMatchObject({ type: "video", commentText: "First steps" });
  expect(javaScriptEnabled ? [filledInBrowser] : days).toContain(item!.title);
  // The clip is prepared in the background, which replaces the stored file: whichever it is, it is on the disk.
  await expect.poll(() => isStored(itemsOf(folder.id)[0]?.filePaths[0])).toBe(true);
});

test("a form refused for its fields keeps its photo: the second Add needs no new pick", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "For Mum" });
  await page.goto(`/folders/${folder.id}/add/photo`);
  const dialog = page.getByRole("dialog", { name: "Add Photo" });
  await dialog.getByLabel("Photos").setInputFiles({
    name: "beach-day.jpg",
    mimeType: "image/jpeg",
    buffer: await jpeg(),
  });
  // Neither a comment nor a question: refused.
  await dialog.getByLabel("Leave a comment").uncheck();
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(dialog.getByText(CHOOSE_AN_OPTION)).toBeVisible();
  expect(itemsOf(folder.id)).toEqual([]);
  // Titled by the app either way, in the browser or by the server.
  await expect(dialog.getByLabel("Title")).toHaveValue("beach day");

  let keptKey: string | undefined;
  if (javaScriptEnabled) {
    // Refused in the browser: nothing was sent, and the photo is still chosen.
    await expect(
      dialog.getByRole("list", { name: "Ready to upload" }).getByText(/^beach-day\.jpg/),
    ).toBeVisible();
    expect(draftsOf(user.id)).toEqual([]);
  } else {
    await expect(
      dialog.getByText("beach-day.jpg is kept: no need to choose it again."),
    ).toBeVisible();
    const drafts = draftsOf(user.id);
    expect(drafts).toMatchObject([
      { type: "photo", files: [{ name: "beach-day.jpg", mimeType: "image/jpeg" }] },
    ]);
    keptKey = drafts[0]!.files[0]!.key;
    expect(isStored(keptKey)).toBe(true);
  }

  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Sunny");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(page.getByText("Content added successfully!")).toBeVisible();
  const [item] = itemsOf(folder.id);
  expect(item).toMatchObject({
    type: "photo",
    title: "beach day",
    fileNames: ["beach-day.jpg"],
    commentText: "Sunny",
  });
  expect(itemsOf(folder.id)).toHaveLength(1);
  // Without JavaScript the item holds the very file the refused form left on the server.
  if (keptKey) expect(item!.filePaths).toEqual([keptKey]);
  expect(isStored(item!.filePaths[0])).toBe(true);
  // The draft went with the save.
  expect(draftsOf(user.id)).toEqual([]);
});
