import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { waitUntil } from "#tests/support/integration";
import { ffmpeg, ffprobe, MediaToolError, stopMediaTools } from "./ffmpeg.server";

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "ffmpeg-test-"));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

const lavfiClip = (seconds: number, output: string) => [
  ...["-y", "-f", "lavfi", "-i", `testsrc2=size=160x120:rate=25:duration=${seconds}`],
  ...["-c:v", "libx264", "-preset", "ultrafast", output],
];

/** The pid of the process whose arguments name `file`, if one runs. */
function processWriting(file: string) {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(file)) {
        return Number(entry);
      }
    } catch {
      // Ended meanwhile.
    }
  }
  return undefined;
}

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

  test("each runs in a process group of its own, which shutdown kills whole (issue 59)", async () => {
    const output = path.join(directory, `grouped-${process.pid}.mp4`);
    const running = ffmpeg(
      ["-y", "-re", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25", output],
      { timeoutMs: 60_000 },
    ).catch((caught) => caught);
    await waitUntil(() => processWriting(output) !== undefined, 10_000, "ffmpeg running");
    const pid = processWriting(output)!;
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const [, parent, group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    expect(Number(parent)).toBe(process.pid);
    expect(Number(group)).toBe(pid);
    stopMediaTools();
    expect((await running).reason).toBe("stopped");
    expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
  });

  test("ffprobe's answer past 1 MiB is the file's fault, refused, not a crash of ours (issue 59)", async () => {
    const clip = path.join(directory, "tag-source.mp4");
    await ffmpeg(lavfiClip(1, clip), { timeoutMs: 60_000 });
    const metadata = path.join(directory, "metadata.txt");
    fs.writeFileSync(metadata, `;FFMETADATA1\ntitle=${"x".repeat(1_200_000)}\n`);
    const tagged = path.join(directory, "long-title.mp4");
    await ffmpeg(["-y", "-i", clip, "-i", metadata, "-map_metadata", "1", "-c", "copy", tagged], {
      timeoutMs: 60_000,
    });
    const error = await ffprobe(tagged).catch((caught) => caught);
    expect(error).toBeInstanceOf(MediaToolError);
    expect(error.reason).toBe("failed");
    expect(error.message).toMatch(/more than 1048576 bytes/);
    // Asked only for what it needs, the same file is a few hundred bytes.
    const narrow = await ffprobe(tagged, { entries: "format=duration:stream=codec_type,width" });
    expect(narrow.streams[0]).toMatchObject({ codec_type: "video", width: 160 });
  });

  test("a program that is not installed is not the file's fault (setpriv says so with 127)", async () => {
    const bin = path.join(directory, "only-setpriv");
    fs.mkdirSync(bin);
    fs.symlinkSync(
      execFileSync("sh", ["-c", "command -v setpriv"]).toString().trim(),
      path.join(bin, "setpriv"),
    );
    const previousPath = process.env.PATH;
    process.env.PATH = bin;
    try {
      const error = await ffprobe(path.join(directory, "four.mp4")).catch((caught) => caught);
      expect(error).toBeInstanceOf(MediaToolError);
      expect(error.reason).toBe("unavailable");
    } finally {
      process.env.PATH = previousPath;
    }
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
