import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ffmpeg, ffprobe, MediaToolError, stopMediaTools } from "./ffmpeg.server";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "ffmpeg-test-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

const lavfiClip = (seconds: number, output: string) => [
  ...["-y", "-f", "lavfi", "-i", `testsrc2=size=160x120:rate=25:duration=${seconds}`],
  ...["-c:v", "libx264", "-preset", "ultrafast", output],
];

describe("ffmpeg and ffprobe as programs", () => {
  test("progress comes from ffmpeg's own -progress lines, in seconds written", async () => {
    const output = path.join(directory, "four.mp4");
    const heard: number[] = [];
    await ffmpeg(lavfiClip(4, output), {
      timeoutMs: 60_000,
      onProgress: (seconds) => heard.push(seconds),
    });
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.at(-1)).toBeGreaterThan(3.5);
    expect(heard.at(-1)).toBeLessThanOrEqual(4.1);
    const probe = await ffprobe(output);
    expect(probe.streams[0]).toMatchObject({ codec_type: "video", width: 160, height: 120 });
  });

  test("one past its deadline is killed and says so", async () => {
    const output = path.join(directory, "endless.mp4");
    const started = Date.now();
    const error = await ffmpeg(
      [
        "-y",
        "-re",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=160x120:rate=25",
        "-c:v",
        "libx264",
        output,
      ],
      { timeoutMs: 500 },
    ).catch((caught) => caught);
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error.reason).toBe("timed-out");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("shutdown stops a running ffmpeg, and says it was stopped, not that the file failed", async () => {
    const output = path.join(directory, "stopped.mp4");
    const running = ffmpeg(
      [
        "-y",
        "-re",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=160x120:rate=25",
        "-c:v",
        "libx264",
        output,
      ],
      { timeoutMs: 60_000 },
    ).catch((caught) => caught);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stopMediaTools();
    const error = await running;
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error.reason).toBe("stopped");
  });

  test("a file it cannot read is an error carrying ffmpeg's own words", async () => {
    const input = path.join(directory, "words.mp4");
    fs.writeFileSync(input, "no video here");
    const error = await ffprobe(input).catch((caught) => caught);
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error.reason).toBe("failed");
    expect(error.stderr).toMatch(/Invalid data/i);
  });
});
