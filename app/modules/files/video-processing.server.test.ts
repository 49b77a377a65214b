import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countMediaTools } from "#tests/support/counted-media-tools";
import {
  eightSoundTrackClip,
  FILMED_AT,
  hugePictureClip,
  topAndBottomColours,
  topLevelBoxes,
  truncatedClip,
  twoHourClip,
  uprightHevcMov,
} from "#tests/support/video-clips";
import { LIMITS } from "~/modules/plans/limits";
import { ffprobe } from "~/platform/ffmpeg.server";
import {
  judgeProbe,
  prepareVideo,
  tooLongMessage,
  VideoRejectedError,
} from "./video-processing.server";

/**
 * Real clips made by ffmpeg itself (lavfi's test picture and tone), prepared
 * by the real ffmpeg and checked with ffprobe. TMPDIR points at a directory
 * of this test's own, so "nothing left on disk" is seen there alone; the
 * programs are counted as they run (tests/support/counted-media-tools.ts).
 */

const FREE_SECONDS = LIMITS.video.maxSecondsFree;
let workRoot: string;
let fixtures: string;
let previousTmp: string | undefined;
let mediaTools: ReturnType<typeof countMediaTools>;

function make(name: string, args: string[]) {
  const output = path.join(fixtures, name);
  execFileSync("ffmpeg", ["-v", "error", "-y", ...args, output]);
  return output;
}

const LOCATION = FILMED_AT;
const tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"];

beforeAll(() => {
  previousTmp = process.env.TMPDIR;
  workRoot = fs.mkdtempSync(path.join(os.tmpdir(), "video-test-"));
  fixtures = fs.mkdtempSync(path.join(workRoot, "fixtures-"));
  const work = path.join(workRoot, "work");
  fs.mkdirSync(work);
  process.env.TMPDIR = work;
  mediaTools = countMediaTools(workRoot);
});

afterAll(() => {
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  fs.rmSync(workRoot, { recursive: true, force: true });
});

/** What our temporary folders hold: the process's folder and its "videos" folder may stay, empty. */
function leftInWork() {
  const work = path.join(workRoot, "work");
  return fs
    .readdirSync(work, { recursive: true, withFileTypes: true })
    .map((entry) => path.relative(work, path.join(entry.parentPath, entry.name)))
    .filter((entry) => !/^thoughtfully-process-\d+-\d+(\/videos)?$/.test(entry));
}

async function expectPlayableEverywhere(prepared: Awaited<ReturnType<typeof prepareVideo>>) {
  const probe = await ffprobe(prepared.videoPath);
  const video = probe.streams.find((stream) => stream.codec_type === "video");
  const audio = probe.streams.filter((stream) => stream.codec_type === "audio");
  expect(probe.format.format_name).toContain("mp4");
  expect(video?.codec_name).toBe("h264");
  expect(audio.map((stream) => stream.codec_name)).toEqual(["aac"]);
  expect(Math.min(video!.width!, video!.height!)).toBeLessThanOrEqual(720);
  expect(Math.max(video!.width!, video!.height!)).toBeLessThanOrEqual(1280);
  expect(video?.side_data_list?.some((data) => data.rotation)).toBeFalsy();
  const tags = JSON.stringify([probe.format.tags ?? {}, ...probe.streams.map((s) => s.tags ?? {})]);
  expect(tags).not.toMatch(/location|ISO6709|48\.8584/i);
  const boxes = topLevelBoxes(prepared.videoPath);
  expect(boxes.indexOf("moov")).toBeGreaterThanOrEqual(0);
  expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
  const poster = fs.readFileSync(prepared.posterPath);
  expect([...poster.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  const posterProbe = await ffprobe(prepared.posterPath);
  expect(posterProbe.streams[0]?.codec_name).toBe("mjpeg");
  expect(posterProbe.streams[0]?.width).toBe(video?.width);
  return video!;
}

describe("prepareVideo", () => {
  it("makes a 3 s 1080p clip with its location a 720p H.264/AAC MP4 with faststart, no metadata, and a JPEG poster", async () => {
    const input = make("landscape.mp4", [
      ...["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
      ...tone,
      ...["-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
      ...["-metadata", `location=${LOCATION}`, "-metadata", "title=Beach day"],
    ]);
    expect(JSON.stringify((await ffprobe(input)).format.tags)).toContain("48.8584");
    const shares: number[] = [];
    const prepared = await prepareVideo(input, {
      maxSeconds: FREE_SECONDS,
      onProgress: (share) => shares.push(share),
    });
    const video = await expectPlayableEverywhere(prepared);
    expect([video.width, video.height]).toEqual([1280, 720]);
    expect(prepared.durationSeconds).toBeGreaterThan(2.9);
    expect(prepared.durationSeconds).toBeLessThan(3.2);
    expect(shares.at(-1)).toBe(1);
    expect(shares.some((share) => share > 0 && share < 1)).toBe(true);
    await prepared.remove();
    expect(leftInWork()).toEqual([]);
  }, 30_000);

  it("turns a clip filmed upright (a rotation tag) upright, 720 by 1280, without the tag", async () => {
    const flat = make("flat.mp4", [
      ...["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
      ...tone,
      ...["-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
    ]);
    const rotated = make("rotated.mp4", ["-i", flat, "-c", "copy", "-metadata:s:v:0", "rotate=90"]);
    const tagged = (await ffprobe(rotated)).streams[0];
    expect(tagged?.side_data_list?.some((data) => Math.abs(data.rotation ?? 0) === 90)).toBe(true);
    const prepared = await prepareVideo(rotated, { maxSeconds: FREE_SECONDS });
    const video = await expectPlayableEverywhere(prepared);
    expect([video.width, video.height]).toEqual([720, 1280]);
    await prepared.remove();
  }, 30_000);

  it("turns an iPhone's upright HEVC .mov the way its display matrix says, and drops its location", async () => {
    const input = uprightHevcMov(fixtures);
    const source = await ffprobe(input);
    expect(source.streams[0]).toMatchObject({ codec_name: "hevc", width: 1280, height: 720 });
    expect(source.streams[0]?.side_data_list?.some((data) => data.rotation === 90)).toBe(true);
    expect(JSON.stringify(source.format.tags)).toContain("com.apple.quicktime.location.ISO6709");
    // Shown upright, the red left half of the stored picture is at the bottom.
    expect(topAndBottomColours(input)).toEqual({ top: "blue", bottom: "red" });
    const prepared = await prepareVideo(input, { maxSeconds: FREE_SECONDS });
    const video = await expectPlayableEverywhere(prepared);
    expect([video.width, video.height]).toEqual([720, 1280]);
    expect(topAndBottomColours(prepared.videoPath)).toEqual({ top: "blue", bottom: "red" });
    expect(topAndBottomColours(prepared.posterPath)).toEqual({ top: "blue", bottom: "red" });
    await prepared.remove();
  }, 60_000);

  it("brings an iPhone-like HEVC HLG .mov (10-bit, BT.2020) to 8-bit BT.709 H.264", async () => {
    const input = make("iphone.mov", [
      ...["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30"],
      ...tone,
      ...["-t", "2", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"],
      ...["-pix_fmt", "yuv420p10le", "-tag:v", "hvc1"],
      ...["-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"],
      ...["-c:a", "aac", "-movflags", "use_metadata_tags"],
      ...["-metadata", `com.apple.quicktime.location.ISO6709=${LOCATION}`],
    ]);
    const source = (await ffprobe(input)).streams[0];
    expect(source?.codec_name).toBe("hevc");
    expect(source?.color_transfer).toBe("arib-std-b67");
    const prepared = await prepareVideo(input, { maxSeconds: FREE_SECONDS });
    const video = await expectPlayableEverywhere(prepared);
    expect(video.color_transfer).toBe("bt709");
    await prepared.remove();
  }, 60_000);

  describe("refuses with a clear message, leaving nothing on disk", () => {
    async function expectRefused(input: string, code: string, message: RegExp | string) {
      const error = await prepareVideo(input, { maxSeconds: FREE_SECONDS }).catch((e) => e);
      expect(error).toBeInstanceOf(VideoRejectedError);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
      expect(leftInWork()).toEqual([]);
    }

    it("a file named .mp4 that is not a video", async () => {
      const input = path.join(fixtures, "notes.mp4");
      fs.writeFileSync(input, "Dear diary, this is not a video at all.\n".repeat(100));
      await expectRefused(input, "NOT_A_VIDEO", "could not be read as a video");
    });

    it("a truncated file whose index came last (cut before it)", async () => {
      const whole = make("whole.mp4", [
        ...["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30"],
        ...["-t", "3", "-c:v", "libx264", "-preset", "ultrafast"],
      ]);
      const input = path.join(fixtures, "cut.mp4");
      const bytes = fs.readFileSync(whole);
      fs.writeFileSync(input, bytes.subarray(0, Math.floor(bytes.length / 2)));
      await expectRefused(input, "NOT_A_VIDEO", "damaged or cut short");
    });

    it("a truncated file whose index came first (it probes whole, then breaks off)", async () => {
      const input = truncatedClip(fixtures);
      expect(Number((await ffprobe(input)).format.duration)).toBeGreaterThan(5.5);
      await expectRefused(input, "DAMAGED", "damaged or cut short");
    });

    it("a two-hour clip, naming the limit", async () => {
      const input = twoHourClip(fixtures);
      expect(Number((await ffprobe(input)).format.duration)).toBe(7200);
      await expectRefused(input, "TOO_LONG", tooLongMessage(FREE_SECONDS));
      expect(tooLongMessage(FREE_SECONDS)).toBe(
        "Videos can be up to 60 seconds long (5 minutes with Premium).",
      );
    });

    it("an 8192 by 8192 picture, by its size, before any transcode starts (issue 59)", async () => {
      const input = hugePictureClip(fixtures);
      mediaTools.reset();
      await expectRefused(
        input,
        "TOO_LARGE_PICTURE",
        "This video's picture is 8192 by 8192 pixels, larger than 4K. Please send a copy of it in 4K (3840 by 2160) or smaller.",
      );
      expect(mediaTools.runs("ffprobe")).toBe(1);
      expect(mediaTools.runs("ffmpeg")).toBe(0);
    });

    it("a clip with 8 sound tracks", async () => {
      const input = eightSoundTrackClip(fixtures);
      await expectRefused(input, "TOO_MANY_TRACKS", "8 sound tracks; a clip can have at most 4");
    });
  });
});

describe("judgeProbe", () => {
  const probe = (format: string, width: number, height: number, rotation?: number) => ({
    format: { format_name: format, duration: "3.0" },
    streams: [
      {
        index: 0,
        codec_type: "video",
        width,
        height,
        ...(rotation === undefined ? {} : { side_data_list: [{ rotation }] }),
      },
    ],
  });

  it("reads a rotated clip's size as shown", () => {
    expect(
      judgeProbe(probe("mov,mp4,m4a,3gp,3g2,mj2", 1920, 1080, -90), { maxSeconds: 60 }),
    ).toMatchObject({
      width: 1080,
      height: 1920,
      hasSound: false,
      hdr: false,
    });
  });

  it("refuses a picture wider than 8192 pixels, and an image or a GIF that is not a clip", () => {
    expect(() => judgeProbe(probe("matroska,webm", 10_000, 100), { maxSeconds: 60 })).toThrow(
      "at most 8192 pixels on their long side",
    );
    for (const format of ["image2", "gif", "png_pipe"]) {
      expect(() => judgeProbe(probe(format, 100, 100), { maxSeconds: 60 })).toThrow(
        "could not be read as a video",
      );
    }
  });

  describe("the work a clip asks for (issue 59)", () => {
    const clip = (
      width: number,
      height: number,
      framesPerSecond: number,
      seconds: number,
      extra: Record<string, unknown> = {},
    ) => ({
      format: { format_name: "mov,mp4,m4a,3gp,3g2,mj2", duration: String(seconds) },
      streams: [
        {
          index: 0,
          codec_type: "video",
          width,
          height,
          avg_frame_rate: `${framesPerSecond}/1`,
          nb_frames: String(Math.round(framesPerSecond * seconds)),
          ...extra,
        },
        { index: 1, codec_type: "audio" },
      ],
    });
    const FREE = { maxSeconds: LIMITS.video.maxSecondsFree };
    const PREMIUM = { maxSeconds: LIMITS.video.maxSecondsPremium };
    const hlg = { color_transfer: "arib-std-b67", side_data_list: [{ rotation: -90 }] };

    it("takes every phone's clip at full length: 4K60 either way up, 10-bit HDR, 4K120, slow motion, 3 minutes of 1080p", () => {
      for (const [limits, probe] of [
        [FREE, clip(3840, 2160, 60, 60.3)],
        [FREE, clip(2160, 3840, 60, 60)],
        [FREE, clip(3840, 2160, 120, 60)],
        [FREE, clip(1920, 1080, 240, 60)],
        [PREMIUM, clip(3840, 2160, 60, 300, hlg)],
        [PREMIUM, clip(3840, 2160, 120, 300)],
        [PREMIUM, clip(4096, 2160, 60, 300)],
        [PREMIUM, clip(1920, 1080, 30, 180)],
      ] as const) {
        expect(() => judgeProbe(probe, limits)).not.toThrow();
      }
      expect(judgeProbe(clip(3840, 2160, 60, 300, hlg), PREMIUM)).toMatchObject({
        width: 2160,
        height: 3840,
        hdr: true,
      });
    });

    it("refuses a frame larger than 4K, at any length", () => {
      for (const [width, height] of [
        [8192, 8192],
        [7680, 4320],
        [5120, 2880],
      ]) {
        expect(() => judgeProbe(clip(width!, height!, 1, 2), FREE)).toThrow(
          `This video's picture is ${width} by ${height} pixels, larger than 4K.`,
        );
      }
    });

    it("refuses more frames than 4K at 120 a second for the sender's length, counted or by their rate", () => {
      expect(() => judgeProbe(clip(3840, 2160, 240, 60), FREE)).toThrow(
        "This video has too many frames to prepare (3840 by 2160 pixels, 240 frames a second, 60 seconds). A video can be up to 4K at 120 frames a second for its full length; please send a shorter clip, or one filmed at fewer frames a second.",
      );
      expect(() => judgeProbe(clip(3840, 2160, 240, 60), PREMIUM)).not.toThrow();
      // WebM counts no frames: its average rate over its length stands for them.
      const webm = clip(1920, 1080, 1000, 60, { nb_frames: undefined });
      expect(() =>
        judgeProbe({ ...webm, format: { ...webm.format, format_name: "matroska,webm" } }, FREE),
      ).toThrow("too many frames");
    });
  });

  it("names Premium's length to a free sender, and only its own to a Premium one", () => {
    expect(tooLongMessage(300)).toBe("Videos can be up to 5 minutes long.");
  });
});
