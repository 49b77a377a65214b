import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { contentItems } from "#db/schema";
import { countMediaTools } from "#tests/support/counted-media-tools";
import { manyTrackClip } from "#tests/support/video-clips";
import { tooLongMessage } from "~/modules/files/video-processing.server";
import { db } from "~/platform/db.server";
import { ffprobe } from "~/platform/ffmpeg.server";
import { holdWork, processStart } from "~/platform/process-folder.server";
import { storage } from "~/platform/storage.server";
import { resumeInterruptedVideos, runVideoPass } from "./video-preparation.server";

/**
 * The background pass against the real database, storage and ffmpeg: clips
 * made by ffmpeg in the test are stored as an upload would store them, the
 * pass prepares them, and what is stored afterwards is read back and probed.
 */

let workRoot: string;
let previousTmp: string | undefined;
let mediaTools: ReturnType<typeof countMediaTools>;

beforeAll(() => {
  previousTmp = process.env.TMPDIR;
  workRoot = fs.mkdtempSync(path.join(os.tmpdir(), "video-pass-test-"));
  fs.mkdirSync(path.join(workRoot, "work"));
  process.env.TMPDIR = path.join(workRoot, "work");
  mediaTools = countMediaTools(workRoot);
});

afterAll(() => {
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  fs.rmSync(workRoot, { recursive: true, force: true });
});

function clip(name: string, args: string[]) {
  const output = path.join(workRoot, name);
  execFileSync("ffmpeg", ["-v", "error", "-y", ...args, output]);
  return output;
}

/** Stored as the upload pipeline stores a file: streamed under a random key. */
function store(file: string) {
  return storage.put(fs.createReadStream(file));
}

async function readBack(key: string, name: string) {
  const target = path.join(workRoot, name);
  const source = await storage.get(key);
  if (!source) throw new Error(`${key} is not stored`);
  await pipeline(source, fs.createWriteStream(target));
  return target;
}

/**
 * A saved clip waiting to be prepared. Until the add sheet saves items of type
 * "video" (issue 46, next stage), a file item carries the state: the pass reads
 * only the video columns and the one file.
 */
async function waitingClip(file: string, values: { premium?: boolean; fileName?: string } = {}) {
  const user = createUser(
    db,
    values.premium ? { subscriptionTier: "premium", subscriptionStatus: "active" } : {},
  );
  const folder = createFolder(db, user.id);
  const source = await store(file);
  const item = createItem(db, folder.id, {
    type: "file",
    filePaths: [source.key],
    fileNames: [values.fileName ?? "Beach day.mov"],
    fileSizes: [source.size],
    mimeTypes: ["video/quicktime"],
    videoStatus: "preparing",
  });
  return { item, sourceKey: source.key };
}

const row = (id: number) => db.select().from(contentItems).where(eq(contentItems.id, id)).get()!;

/** Our temporary files: only the process's folder and its own folders may remain, with no file. */
function leftOnDisk() {
  const work = path.join(workRoot, "work");
  return fs
    .readdirSync(work, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() || /^clip-/.test(entry.name))
    .map((entry) => path.relative(work, path.join(entry.parentPath, entry.name)));
}

describe("the video pass", () => {
  test("puts a 720p MP4 and its poster in the clip's place and releases the clip as uploaded", async () => {
    const { item, sourceKey } = await waitingClip(
      clip("beach.mov", [
        ...["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
        ...["-f", "lavfi", "-i", "sine=frequency=330"],
        ...["-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
        ...["-metadata", "location=+48.8584+002.2945/"],
      ]),
    );
    await runVideoPass();
    const ready = row(item.id);
    expect(ready).toMatchObject({
      videoStatus: "ready",
      videoProgress: 100,
      videoError: null,
      videoNextAttemptAt: null,
      fileNames: ["Beach day.mp4"],
      mimeTypes: ["video/mp4"],
    });
    expect(ready.videoDurationMs).toBeGreaterThan(2900);
    expect(ready.videoDurationMs).toBeLessThan(3200);
    expect(ready.filePaths[0]).not.toBe(sourceKey);
    expect(await storage.stat(sourceKey)).toBeNull();

    const video = await readBack(ready.filePaths[0]!, "stored.mp4");
    expect(fs.statSync(video).size).toBe(ready.fileSizes[0]);
    const probe = await ffprobe(video);
    expect(probe.streams.map((stream) => stream.codec_name)).toEqual(["h264", "aac"]);
    expect([probe.streams[0]?.width, probe.streams[0]?.height]).toEqual([1280, 720]);
    expect(JSON.stringify(probe.format.tags)).not.toMatch(/location/i);
    const poster = fs.readFileSync(await readBack(ready.thumbnailPaths[0]!, "poster.jpg"));
    expect([...poster.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(leftOnDisk()).toEqual([]);
  }, 60_000);

  test("a clip past the free length fails with the limit named, and nothing of it stays stored", async () => {
    const { item, sourceKey } = await waitingClip(
      clip("long.mp4", [
        ...["-f", "lavfi", "-i", "color=c=green:size=32x32:rate=1:duration=90"],
        ...["-c:v", "libx264", "-preset", "ultrafast"],
      ]),
    );
    await runVideoPass();
    expect(row(item.id)).toMatchObject({
      videoStatus: "failed",
      videoError: tooLongMessage(60),
      filePaths: [],
      fileSizes: [],
      thumbnailPaths: [],
      fileNames: ["Beach day.mov"],
    });
    expect(await storage.stat(sourceKey)).toBeNull();
    expect(leftOnDisk()).toEqual([]);
  }, 60_000);

  test("the same 90 s clip is prepared for a Premium sender (5 minutes)", async () => {
    const { item } = await waitingClip(path.join(workRoot, "long.mp4"), { premium: true });
    await runVideoPass();
    expect(row(item.id).videoStatus).toBe("ready");
    expect(row(item.id).videoDurationMs).toBeGreaterThan(89_000);
  }, 60_000);

  test("a file that is not a video fails with the message, and is released", async () => {
    const notes = path.join(workRoot, "notes.mp4");
    fs.writeFileSync(notes, "Not a clip. ".repeat(500));
    const { item, sourceKey } = await waitingClip(notes);
    await runVideoPass();
    expect(row(item.id).videoStatus).toBe("failed");
    expect(row(item.id).videoError).toMatch(/could not be read as a video/);
    expect(await storage.stat(sourceKey)).toBeNull();
  });

  test("a clip leased by a pass that died waits for its lease, or is taken again at start", async () => {
    const { item } = await waitingClip(path.join(workRoot, "beach.mov"));
    const inAnHour = new Date(Date.now() + 60 * 60_000);
    db.update(contentItems)
      .set({ videoNextAttemptAt: inAnHour, videoAttempts: 1 })
      .where(eq(contentItems.id, item.id))
      .run();
    await runVideoPass();
    expect(row(item.id)).toMatchObject({ videoStatus: "preparing", videoAttempts: 1 });
    expect(resumeInterruptedVideos()).toBeGreaterThanOrEqual(1);
    await runVideoPass();
    expect(row(item.id)).toMatchObject({ videoStatus: "ready", videoAttempts: 2 });
  }, 60_000);

  test("a file of 999 tracks is refused as not a video after one probe, and never tried again (issue 59)", async () => {
    const { item, sourceKey } = await waitingClip(manyTrackClip(workRoot));
    mediaTools.reset();
    await runVideoPass();
    expect(row(item.id)).toMatchObject({ videoStatus: "failed", videoNextAttemptAt: null });
    expect(row(item.id).videoError).toMatch(/could not be read as a video/);
    expect(await storage.stat(sourceKey)).toBeNull();
    await runVideoPass(new Date(Date.now() + 60 * 60_000));
    expect(mediaTools.runs("ffprobe")).toBe(1);
    expect(mediaTools.runs("ffmpeg")).toBe(0);
    expect(leftOnDisk()).toEqual([]);
  }, 60_000);

  test("at start, a clip a living process has in hand keeps its lease; one a dead process held is taken again", async () => {
    const { item } = await waitingClip(path.join(workRoot, "beach.mov"));
    const inAnHour = new Date(Date.now() + 60 * 60_000);
    const leased = () =>
      db
        .update(contentItems)
        .set({ videoNextAttemptAt: inAnHour })
        .where(eq(contentItems.id, item.id))
        .run();
    leased();
    // This test's process lives: as a server still finishing its transcode beside a new one.
    const release = holdWork("video-items", item.id);
    resumeInterruptedVideos();
    expect(row(item.id).videoNextAttemptAt).toEqual(inAnHour);
    release();

    // The same mark in the folder of a process that has ended.
    const ended = execFileSync("sh", ["-c", "echo $$"]).toString().trim();
    expect(processStart(Number(ended))).toBeNull();
    const deadFolder = path.join(workRoot, "work", `thoughtfully-process-${ended}-1`);
    fs.mkdirSync(path.join(deadFolder, "held", "video-items"), { recursive: true });
    fs.writeFileSync(path.join(deadFolder, "held", "video-items", String(item.id)), "");
    resumeInterruptedVideos();
    expect(row(item.id).videoNextAttemptAt).toBeNull();
    fs.rmSync(deadFolder, { recursive: true });
    await runVideoPass();
    expect(row(item.id).videoStatus).toBe("ready");
  }, 60_000);

  test("a clip sent or deleted while it was waiting is left alone", async () => {
    const { item, sourceKey } = await waitingClip(path.join(workRoot, "beach.mov"));
    db.update(contentItems).set({ sentAt: new Date() }).where(eq(contentItems.id, item.id)).run();
    await runVideoPass();
    expect(row(item.id)).toMatchObject({ videoStatus: "preparing", filePaths: [sourceKey] });
  });
});
