import fs from "node:fs";
import { expect, test } from "vitest";
import { tempDir, waitUntil } from "../support/integration";
import { startSaveByEmailWorld } from "../support/save-by-email-world";
import {
  FILMED_AT,
  probe,
  topAndBottomColours,
  topLevelBoxes,
  uprightHevcMov,
} from "../support/video-clips";

/**
 * Issue 46, a clip forwarded by e-mail: the production build's SMTP receiver
 * takes the attachment from its spool as a video item, prepared in the
 * background like the Add Video sheet's, within the same quotas. Needs
 * `npm run build` first.
 */
const world = await startSaveByEmailWorld();
const { folder, address, itemsOf, smtpSend, answersTo, fullSender, spooledFiles, server } = world;
const clips = tempDir();

function storedPath(key: string) {
  return `${server.dataDir}/uploads/${key.slice(0, 2)}/${key}`;
}

test("an iPhone's clip forwarded by e-mail becomes a video item, prepared upright as H.264/AAC without its location", async () => {
  const clip = uprightHevcMov(clips);
  const answers = answersTo("ada@family.test").length;
  const before = itemsOf(folder.id).length;
  await smtpSend({
    from: "Ada <ada@family.test>",
    to: address,
    subject: "Fwd: First steps",
    text: "She walked!",
    attachments: [
      { filename: "IMG_0007.MOV", content: fs.readFileSync(clip), contentType: "video/quicktime" },
    ],
  });
  const [item] = itemsOf(folder.id).slice(before);
  expect(item).toMatchObject({
    type: "video",
    title: "First steps",
    commentText: "She walked!",
    fileNames: ["IMG_0007.MOV"],
  });
  const answer = answersTo("ada@family.test")[answers]!;
  expect(answer.subject).toBe("Saved 1 item to Family news");
  expect((answer.text ?? "").replace(/\s+/g, " ")).toContain(
    "Goes out with the next issue of Family news: the video “First steps”. A video is prepared for sending first",
  );

  const current = () => itemsOf(folder.id).find((row) => row.id === item!.id)!;
  await waitUntil(() => current().videoStatus === "ready", 60_000, "the clip prepared");
  const ready = current();
  expect(ready).toMatchObject({ mimeTypes: ["video/mp4"], fileNames: ["IMG_0007.mp4"] });
  // The clip as uploaded is released just after the item is marked ready.
  await waitUntil(
    () => !fs.existsSync(storedPath(item!.filePaths[0]!)),
    5_000,
    "the clip released",
  );
  const mp4 = storedPath(ready.filePaths[0]!);
  const stored = probe(mp4);
  expect(stored.streams.map((stream) => [stream.codec_type, stream.codec_name])).toEqual([
    ["video", "h264"],
    ["audio", "aac"],
  ]);
  expect(stored.streams[0]).toMatchObject({ width: 720, height: 1280 });
  expect(topAndBottomColours(mp4)).toEqual({ top: "blue", bottom: "red" });
  expect(topLevelBoxes(mp4).indexOf("moov")).toBeLessThan(topLevelBoxes(mp4).indexOf("mdat"));
  const tags = JSON.stringify([stored.format.tags, ...stored.streams.map((s) => s.tags)]);
  expect(tags).not.toMatch(/location|ISO6709/i);
  expect(tags).not.toContain(FILMED_AT.slice(0, 8));
  expect(fs.readFileSync(storedPath(ready.thumbnailPaths[0]!)).subarray(0, 3)).toEqual(
    Buffer.from([0xff, 0xd8, 0xff]),
  );
  expect(spooledFiles()).toEqual([]);
}, 90_000);

test("a clip is refused by e-mail as by the sheet: not a video by its bytes, or past the sender's storage", async () => {
  const answers = answersTo("ada@family.test").length;
  const before = itemsOf(folder.id).length;
  await smtpSend({
    from: "Ada <ada@family.test>",
    to: address,
    subject: "Fwd: Holiday",
    text: "Look",
    attachments: [
      {
        filename: "holiday.mp4",
        content: Buffer.from("A letter, not a video.\n"),
        contentType: "video/mp4",
      },
    ],
  });
  expect(itemsOf(folder.id).length).toBe(before);
  const refused = answersTo("ada@family.test")[answers]!;
  expect(refused.subject).toBe("Nothing saved to Family news");
  expect((refused.text ?? "").replace(/\s+/g, " ")).toContain(
    '"holiday.mp4" is not an allowed video type. Videos must be MP4, MOV or WebM.',
  );

  const full = fullSender("Bea");
  await smtpSend({
    from: `Bea <${full.email}>`,
    to: full.address,
    subject: "Fwd: First steps",
    text: "Look",
    attachments: [
      {
        filename: "IMG_0007.MOV",
        content: fs.readFileSync(uprightHevcMov(clips)),
        contentType: "video/quicktime",
      },
    ],
  });
  expect(itemsOf(full.folder.id)).toEqual([]);
  const [storage] = answersTo(full.email);
  expect(storage?.subject).toBe(`Nothing saved to ${full.folder.name}`);
  expect(storage?.text).toMatch(/Nothing from your message was saved\. You're using 50\.0 MB/);
  expect(spooledFiles()).toEqual([]);
});
