import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { contentItems } from "#db/schema";
import { createSentLedger } from "#db/sent-issue-factories";
import {
  clip1080p,
  eightSoundTrackClip,
  FILMED_AT,
  hugePictureClip,
  probe,
  topAndBottomColours,
  topLevelBoxes,
  truncatedClip,
  twoHourClip,
  uprightHevcMov,
} from "#tests/support/video-clips";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, testDb, uniqueEmail } from "../support/accounts";
import { itemsOf, storedFiles, strayFilesSince, writeStoredFile } from "../support/items";

/**
 * Issue 46, short videos, from the folder's Add Video sheet on a phone: a clip made here by
 * ffmpeg itself is uploaded, the card says "Preparing video…" while the server transcodes it
 * in the background, then shows its poster; the stored clip is the 720p H.264/AAC MP4.
 */
test.use({ viewport: { width: 375, height: 740 } });

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "videos-e2e-"));
test.afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

test("a clip added from the folder is prepared in the background and shows its poster", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("link", { name: "Add Video" }).click();
  const dialog = page.getByRole("dialog", { name: "Add Video" });
  await dialog.getByLabel("Video").setInputFiles(clip1080p(directory));
  await dialog.getByLabel("Title").fill("First steps");
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Look at her go");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`), {
    timeout: 30_000,
  });
  const [item] = itemsOf(folder.id);
  expect(item).toMatchObject({ type: "video", title: "First steps" });
  const card = page.locator(`#item-${item!.id}`);
  await expect(card.getByText("video", { exact: true })).toBeVisible();

  // With JavaScript the card looks again by itself; without, the sender reloads.
  await expect(async () => {
    if (!javaScriptEnabled) await page.reload();
    await expect(card.getByRole("img", { name: "IMG_0042.mp4 (video)" })).toBeVisible({
      timeout: 2_000,
    });
  }).toPass({ timeout: 60_000 });
  await expect(card.getByText(/Preparing video/)).toHaveCount(0);

  const [ready] = itemsOf(folder.id);
  expect(ready).toMatchObject({
    videoStatus: "ready",
    videoProgress: 100,
    mimeTypes: ["video/mp4"],
  });
  const stored = await page.request.get(`/files/${ready!.filePaths[0]}`);
  expect(stored.status()).toBe(200);
  const mp4 = path.join(directory, `stored-${item!.id}.mp4`);
  fs.writeFileSync(mp4, await stored.body());
  const streams = probe(mp4).streams;
  expect(streams.find((stream) => stream.codec_type === "video")).toMatchObject({
    codec_name: "h264",
    width: 1280,
    height: 720,
  });
  expect(streams.find((stream) => stream.codec_type === "audio")).toMatchObject({
    codec_name: "aac",
  });
  const poster = await page.request.get(`/files/${ready!.thumbnailPaths[0]}`);
  expect(poster.headers()["content-type"]).toBe("image/jpeg");
});

test("a file named .mp4 that is not a video is refused with the kind's message", async ({
  page,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  await page.goto(`/folders/${folder.id}/add/video`);
  const dialog = page.getByRole("dialog", { name: "Add Video" });
  await dialog.getByLabel("Title").fill("Not a clip");
  await dialog.getByLabel("Video").setInputFiles({
    name: "holiday.mp4",
    mimeType: "video/mp4",
    buffer: Buffer.from("This is a letter, not a video.\n"),
  });
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Hm");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(
    dialog.getByText(
      '"holiday.mp4" is not an allowed video type. Videos must be MP4, MOV or WebM.',
      { exact: true },
    ),
  ).toBeVisible();
  expect(itemsOf(folder.id)).toEqual([]);
});

/** Adds a clip from the folder's Add Video sheet and returns its card, once the folder shows it. */
async function addVideo(page: Page, folderId: number, file: string, title: string) {
  await page.goto(`/folders/${folderId}/add/video`);
  const dialog = page.getByRole("dialog", { name: "Add Video" });
  await dialog.getByLabel("Video").setInputFiles(file);
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("From the phone");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/folders/${folderId}#item-\\d+$`), {
    timeout: 30_000,
  });
  const item = itemsOf(folderId).find((row) => row.title === title);
  // The clip just picked, not one kept on the device from the sheet's last save.
  expect(item).toMatchObject({ type: "video", fileNames: [path.basename(file)] });
  return page.locator(`#item-${item!.id}`);
}

/** Waits for what the card says once the clip is prepared or refused: with JavaScript it looks again by itself. */
async function expectCardToSettle(
  page: Page,
  card: Locator,
  shown: () => Locator,
  javaScriptEnabled: boolean,
) {
  await expect(async () => {
    if (!javaScriptEnabled) await page.reload();
    await expect(shown()).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(card.getByText(/Preparing video/)).toHaveCount(0);
}

test("an iPhone's upright HEVC .mov is stored upright as 720p H.264/AAC, faststart, without its location", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  const card = await addVideo(page, folder.id, uprightHevcMov(directory), "Upright");
  await expectCardToSettle(
    page,
    card,
    () => card.getByRole("img", { name: "IMG_0007.mp4 (video)" }),
    javaScriptEnabled,
  );

  const [ready] = itemsOf(folder.id);
  expect(ready).toMatchObject({ videoStatus: "ready", mimeTypes: ["video/mp4"] });
  const mp4 = path.join(directory, `stored-${ready!.id}.mp4`);
  fs.writeFileSync(mp4, await (await page.request.get(`/files/${ready!.filePaths[0]}`)).body());
  const stored = probe(mp4);
  const video = stored.streams.find((stream) => stream.codec_type === "video");
  expect(video).toMatchObject({ codec_name: "h264", width: 720, height: 1280 });
  expect(video?.side_data_list?.some((data) => data.rotation)).toBeFalsy();
  expect(stored.streams.find((stream) => stream.codec_type === "audio")?.codec_name).toBe("aac");
  // Shown upright, the clip's red left half is at the bottom; the stored picture is already so.
  expect(topAndBottomColours(mp4)).toEqual({ top: "blue", bottom: "red" });
  expect(topLevelBoxes(mp4).indexOf("moov")).toBeLessThan(topLevelBoxes(mp4).indexOf("mdat"));
  const tags = JSON.stringify([stored.format.tags, ...stored.streams.map((s) => s.tags)]);
  expect(tags).not.toMatch(/location|ISO6709/i);
  expect(tags).not.toContain(FILMED_AT.slice(0, 8));
});

test("a clip cut short, a two-hour clip, one with 8 sound tracks and an 8192 by 8192 one are refused on their cards, their files gone", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  test.setTimeout(120_000);
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Family" });
  const before = storedFiles();
  const refusals = [
    [
      truncatedClip(directory),
      "Cut short",
      "could not be read to the end: it may be damaged or cut short",
    ],
    [
      twoHourClip(directory),
      "Two hours",
      "Videos can be up to 60 seconds long (5 minutes with Premium).",
    ],
    [
      eightSoundTrackClip(directory),
      "Eight tracks",
      "This video has 8 sound tracks; a clip can have at most 4.",
    ],
    [
      hugePictureClip(directory),
      "Too large",
      "This video's picture is 8192 by 8192 pixels, larger than 4K. Please send a copy of it in 4K (3840 by 2160) or smaller.",
    ],
  ] as const;
  for (const [file, title, message] of refusals) {
    const card = await addVideo(page, folder.id, file, title);
    await expectCardToSettle(page, card, () => card.getByText(message), javaScriptEnabled);
  }
  for (const row of itemsOf(folder.id)) {
    expect(row).toMatchObject({ videoStatus: "failed", filePaths: [], thumbnailPaths: [] });
  }
  await expect.poll(() => strayFilesSince(before), { timeout: 5_000 }).toEqual([]);
});

/** Signed as app/modules/recipients/recipient-links.server.ts signs a web version's link. */
function webVersionPath(ledgerId: number, email: string) {
  const token = crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(`issue-web:${ledgerId}:${email}`)
    .digest("base64url");
  return `/v/${Buffer.from(`${ledgerId}:${email}`).toString("base64url")}.${token}`;
}

test("the web version plays a sent video in place, its file answering range requests", async ({
  page,
}) => {
  // As the preparation pass stores it: 720p H.264/AAC with faststart, and a JPEG poster.
  const mp4 = path.join(directory, "prepared.mp4");
  const posterFile = path.join(directory, "poster.jpg");
  execFileSync("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
    ...["-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-shortest", "-movflags", "+faststart", mp4],
  ]);
  execFileSync("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y", "-i", mp4, "-frames:v", "1", posterFile],
  ]);
  const clip = fs.readFileSync(mp4);
  const user = await createUser();
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(user.id, {
    name: "Family",
    recipients: [{ name: "Mum", email: mum }],
  });
  const sentAt = new Date();
  const item = testDb()
    .insert(contentItems)
    .values({
      folderId: folder.id,
      type: "video",
      title: "First steps",
      filePaths: [writeStoredFile(clip)],
      thumbnailPaths: [writeStoredFile(fs.readFileSync(posterFile))],
      fileNames: ["steps.mp4"],
      fileSizes: [clip.length],
      mimeTypes: ["video/mp4"],
      videoStatus: "ready",
      videoProgress: 100,
      addComment: true,
      commentText: "Look at her go",
      sentAt,
    })
    .returning()
    .get();
  const { ledger } = createSentLedger(testDb(), folder.id, {
    itemIds: [item.id],
    copies: [{ email: mum }],
    sentAt,
  });

  await page.goto(`${webVersionPath(ledger.id, mum)}#item-${item.id}`);
  const video = page.locator("video");
  await expect(video).toHaveAttribute("preload", "metadata");
  await expect(video).toHaveAttribute("playsinline", "");
  const src = await video.getAttribute("src");
  const poster = await video.getAttribute("poster");
  expect((await page.request.get(poster!)).headers()["content-type"]).toBe("image/jpeg");
  await expect
    .poll(() => video.evaluate((element: HTMLVideoElement) => element.readyState), {
      timeout: 15_000,
    })
    .toBeGreaterThanOrEqual(1);
  // Metadata is what preload asks for; a play makes the browser fetch frames.
  await video.evaluate((element: HTMLVideoElement) => {
    element.muted = true;
    return element.play();
  });
  await expect
    .poll(() => video.evaluate((element: HTMLVideoElement) => element.readyState), {
      timeout: 15_000,
    })
    .toBeGreaterThanOrEqual(2);

  const ranged = await page.request.get(src!, { headers: { Range: "bytes=100-199" } });
  expect(ranged.status()).toBe(206);
  expect(ranged.headers()["content-range"]).toBe(`bytes 100-199/${clip.length}`);
  expect((await ranged.body()).equals(clip.subarray(100, 200))).toBe(true);
});
