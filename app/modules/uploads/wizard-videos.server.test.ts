import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems } from "#db/schema";
import { videoPassSettled } from "~/modules/items/video-preparation-queue.server";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import {
  createDraft,
  type DraftFields,
  finishDraft,
  setDraftFolders,
  validateDraft,
} from "./upload-drafts.server";

/**
 * A clip through "Upload to Multiple Folders": the draft's one stored clip
 * becomes a video item in each chosen folder, each prepared by the real
 * background pass (ffmpeg) into its own MP4 and poster, and the clip as
 * uploaded goes only once no folder's item needs it.
 */

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "wizard-videos-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

const fields = {
  title: "First steps",
  addComment: false,
  askQuestion: false,
  commentText: null,
  questionText: null,
  responseExpectation: "na",
} as unknown as DraftFields;

async function storedClip() {
  const file = path.join(directory, "IMG_0042.mp4");
  execFileSync("ffmpeg", [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10"],
    ...["-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file],
  ]);
  const { key, size } = await storage.put(fs.createReadStream(file));
  return { key, name: "IMG_0042.mp4", size, mimeType: "video/mp4" };
}

const videosIn = (folderId: number) =>
  db.select().from(contentItems).where(eq(contentItems.folderId, folderId)).all();
const isStored = async (key: string) => (await storage.stat(key)) !== null;

test("a clip's draft counts in the account's storage per folder, and in no folder's e-mail cap", async () => {
  const user = createUser(db);
  const [one, two] = [createFolder(db, user.id), createFolder(db, user.id)];
  const clip = await storedClip();
  const draft = await createDraft(user.id, "video", fields, [clip]);
  setDraftFolders(user.id, draft.id, [one.id, two.id]);
  const validation = validateDraft(user.id, { ...draft, folderIds: [one.id, two.id] });
  expect(validation.uploadSize).toBe(clip.size);
  expect(validation.folderValidations.map((folder) => folder.sizeAfterUpload)).toEqual([0, 0]);
  expect(validation.folderValidations.every((folder) => folder.canAccept)).toBe(true);
});

test("each folder's video item ends with its own MP4 and poster; the clip stays until the last needs it no more", async () => {
  const user = createUser(db);
  const [one, two] = [createFolder(db, user.id), createFolder(db, user.id)];
  const clip = await storedClip();
  const draft = await createDraft(user.id, "video", fields, [clip]);
  setDraftFolders(user.id, draft.id, [one.id, two.id]);

  const result = await finishDraft(user.id, draft.id, { onlyValid: true });
  expect(result.finished).toBe(true);
  const [first] = videosIn(one.id);
  const [second] = videosIn(two.id);
  for (const item of [first, second]) {
    expect(item).toMatchObject({ type: "video", videoStatus: "preparing", filePaths: [clip.key] });
  }
  // The pass finishDraft asked for has not started yet (it first loads ffmpeg's side):
  // the second folder's item is held back, as if another pass had leased it.
  db.update(contentItems)
    .set({ videoNextAttemptAt: new Date(Date.now() + 60 * 60_000) })
    .where(eq(contentItems.id, second!.id))
    .run();
  await videoPassSettled();

  const readyFirst = videosIn(one.id)[0]!;
  expect(readyFirst.videoStatus).toBe("ready");
  expect(readyFirst.mimeTypes).toEqual(["video/mp4"]);
  expect(await isStored(clip.key)).toBe(true);

  db.update(contentItems)
    .set({ videoNextAttemptAt: null })
    .where(eq(contentItems.id, second!.id))
    .run();
  const { runVideoPass } = await import("~/modules/items/video-preparation.server");
  await runVideoPass();
  const readySecond = videosIn(two.id)[0]!;
  expect(readySecond.videoStatus).toBe("ready");
  expect(readySecond.filePaths[0]).not.toBe(readyFirst.filePaths[0]);
  expect(readySecond.thumbnailPaths[0]).not.toBe(readyFirst.thumbnailPaths[0]);
  for (const key of [...readyFirst.filePaths, ...readyFirst.thumbnailPaths]) {
    expect(await isStored(key)).toBe(true);
  }
  for (const key of [...readySecond.filePaths, ...readySecond.thumbnailPaths]) {
    expect(await isStored(key)).toBe(true);
  }
  expect(await isStored(clip.key)).toBe(false);
});

test("a clip refused in one folder's item is kept for the other folder's, and goes with the last", async () => {
  const user = createUser(db);
  const [one, two] = [createFolder(db, user.id), createFolder(db, user.id)];
  // Bytes no clip has: the upload would have judged them, the pass refuses them.
  const { key, size } = await storage.put(
    (async function* () {
      yield new Uint8Array(4096);
    })(),
  );
  const draft = await createDraft(user.id, "video", fields, [
    { key, name: "broken.mp4", size, mimeType: "video/mp4" },
  ]);
  setDraftFolders(user.id, draft.id, [one.id, two.id]);
  await finishDraft(user.id, draft.id, { onlyValid: true });
  const second = videosIn(two.id)[0]!;
  db.update(contentItems)
    .set({ videoNextAttemptAt: new Date(Date.now() + 60 * 60_000) })
    .where(eq(contentItems.id, second.id))
    .run();
  await videoPassSettled();
  expect(videosIn(one.id)[0]).toMatchObject({ videoStatus: "failed", filePaths: [] });
  expect(await isStored(key)).toBe(true);

  db.update(contentItems)
    .set({ videoNextAttemptAt: null })
    .where(eq(contentItems.id, second.id))
    .run();
  const { runVideoPass } = await import("~/modules/items/video-preparation.server");
  await runVideoPass();
  expect(videosIn(two.id)[0]).toMatchObject({ videoStatus: "failed", filePaths: [] });
  expect(await isStored(key)).toBe(false);
});
