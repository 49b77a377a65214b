import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "./fixtures";
import { createFolderRow } from "./support/accounts";
import { itemsOf } from "./support/items";

/**
 * Issue 46, short videos, from the folder's Add Video sheet on a phone: a clip made here by
 * ffmpeg itself is uploaded, the card says "Preparing video…" while the server transcodes it
 * in the background, then shows its poster; the stored clip is the 720p H.264/AAC MP4.
 */
test.use({ viewport: { width: 375, height: 740 } });

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "videos-e2e-"));
test.afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

/** A 3 s 1080p H.264/AAC clip of ffmpeg's test picture and a tone. */
function clip1080p() {
  const output = path.join(directory, "IMG_0042.mp4");
  if (!fs.existsSync(output)) {
    execFileSync("ffmpeg", [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
      ...["-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      ...["-c:a", "aac", "-shortest", output],
    ]);
  }
  return output;
}

function probe(file: string) {
  return JSON.parse(
    execFileSync("ffprobe", [
      ...["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file],
    ]).toString(),
  ) as {
    streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
    format: { format_name: string };
  };
}

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
  await dialog.getByLabel("Video").setInputFiles(clip1080p());
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
