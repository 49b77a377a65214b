import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { uploadDrafts } from "#db/schema";
import { uprightHevcMov } from "#tests/support/video-clips";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";
import { itemsOf, storedPath } from "../support/items";

/**
 * Issue 46's last two doors, on a phone: a clip through Upload to Multiple Folders into two
 * folders, and a clip shared from the gallery through the share sheet
 * (docs/decisions/0227-videos-through-the-wizard-and-the-share-sheet.md). Each becomes a
 * video item prepared in the background by the real server and ffmpeg.
 */
test.use({ viewport: { width: 375, height: 740 } });
test.describe.configure({ timeout: 90_000 });

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "video-doors-e2e-"));
test.afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

/** Waits for the background pass to prepare every video item of the folders. */
async function prepared(folderIds: number[]) {
  await expect(() => {
    for (const id of folderIds) {
      expect(itemsOf(id).map((item) => item.videoStatus)).toEqual(["ready"]);
    }
  }).toPass({ timeout: 60_000 });
  return folderIds.map((id) => itemsOf(id)[0]!);
}

test("a clip through the wizard becomes a video in each of two folders, each with its own MP4", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const family = createFolderRow(user.id, { name: "Family", sortOrder: 0 });
  const friends = createFolderRow(user.id, { name: "Friends", sortOrder: 1 });
  const dialog = page.getByRole("dialog", { name: "Upload to Multiple Folders" });

  await page.goto("/upload?type=video");
  await dialog.getByLabel("Title").fill("First steps");
  await dialog.getByLabel("Video").setInputFiles(uprightHevcMov(directory));
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Look at her go");
  await dialog.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/\/upload\/[0-9a-f]{32}\/folders$/);
  const [draft] = testDb()
    .select()
    .from(uploadDrafts)
    .where(eq(uploadDrafts.userId, user.id))
    .all();
  expect(draft).toMatchObject({ type: "video", files: [{ name: "IMG_0007.MOV" }] });
  const clipKey = draft!.files[0]!.key;
  // Back on the content step, the one clip is named, with what choosing another does.
  await dialog.getByRole("link", { name: "Back" }).click();
  await expect(dialog.getByText("IMG_0007.MOV")).toBeVisible();
  await expect(dialog.getByText("Choosing another video replaces it.")).toBeVisible();
  await dialog.getByRole("button", { name: "Next" }).click();
  await expect(page).toHaveURL(/\/upload\/[0-9a-f]{32}\/folders$/);

  for (const name of ["Family", "Friends"]) await dialog.getByLabel(name).check();
  await dialog.getByRole("button", { name: "Next" }).click();
  await expect(dialog.getByText("Every folder can take this upload.")).toBeVisible();
  // With JavaScript the upload starts by itself; without, the sender taps it.
  if (!javaScriptEnabled) {
    await dialog.getByRole("button", { name: "Upload to 2 folders" }).click();
  }
  await expect(page.getByText("Uploaded to 2 folders")).toBeVisible({ timeout: 30_000 });
  await expect(page).toHaveURL(`/folders/${family.id}`);
  for (const folder of [family, friends]) {
    expect(itemsOf(folder.id)).toMatchObject([
      { type: "video", title: "First steps", commentText: "Look at her go" },
    ]);
  }

  const [inFamily, inFriends] = await prepared([family.id, friends.id]);
  expect(inFamily!.mimeTypes).toEqual(["video/mp4"]);
  expect(inFamily!.filePaths[0]).not.toBe(inFriends!.filePaths[0]);
  expect(inFamily!.thumbnailPaths[0]).not.toBe(inFriends!.thumbnailPaths[0]);
  for (const key of [...inFamily!.filePaths, ...inFriends!.filePaths]) {
    expect(fs.existsSync(storedPath(key))).toBe(true);
  }
  // The clip as uploaded goes once neither folder's item needs it (just after the second is ready).
  await expect.poll(() => fs.existsSync(storedPath(clipKey))).toBe(false);
  await page.reload();
  await expect(
    page.locator(`#item-${inFamily!.id}`).getByRole("img", { name: "IMG_0007.mp4 (video)" }),
  ).toBeVisible();
});

/** A page of our own origin posting what the phone's share sheet posts (the manifest's share target). */
async function shareSheet(page: Page) {
  const manifest = await (await page.request.get("/manifest.webmanifest")).json();
  const target = manifest.share_target;
  expect(target.params.files[0].accept).toEqual(
    expect.arrayContaining(["video/quicktime", ".mov"]),
  );
  await page.route("**/test-share-sheet", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><title>Share sheet</title>
        <form action="${target.action}" method="${target.method}" enctype="${target.enctype}">
          <label>Shared file <input type="file" name="${target.params.files[0].name}"></label>
          <button>Share</button>
        </form>`,
    }),
  );
  await page.goto("/test-share-sheet");
}

test("a clip shared from the gallery is saved with the Save tap as a video, prepared", async ({
  page,
  login,
}) => {
  const user = await login();
  const family = createFolderRow(user.id, { name: "Family" });
  await shareSheet(page);
  await page.getByLabel("Shared file").setInputFiles(uprightHevcMov(directory));
  await page.getByRole("button", { name: "Share", exact: true }).click();

  await expect(page.getByRole("heading", { name: "Save this video" })).toBeVisible();
  expect(itemsOf(family.id)).toEqual([]);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();
  expect(itemsOf(family.id)).toMatchObject([{ type: "video", fileNames: ["IMG_0007.MOV"] }]);
  const [video] = await prepared([family.id]);
  expect(video).toMatchObject({ mimeTypes: ["video/mp4"], fileNames: ["IMG_0007.mp4"] });
  expect(
    testDb().select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all(),
  ).toEqual([]);
});
