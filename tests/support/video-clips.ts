import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * Clips made by ffmpeg itself for the video tests (issue 46), each small and
 * quick to make: the unit tests of the preparation and the browser's uploads
 * use the same ones. Each is written once into the given directory.
 */

/** Where a phone says it was filmed; the prepared clip must not say it. */
export const FILMED_AT = "+48.8584+002.2945+035.000/";

const tone = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"];

function make(directory: string, name: string, args: string[]) {
  const output = path.join(directory, name);
  if (!fs.existsSync(output)) {
    execFileSync("ffmpeg", ["-v", "error", "-y", ...args, output]);
  }
  return output;
}

/**
 * An iPhone's clip filmed upright: HEVC (`hvc1`) in a QuickTime `.mov`,
 * stored 1280 by 720 with a display matrix turning it a quarter-turn
 * (ffprobe's rotation 90), and its location in both of the tags phones
 * write. The picture's left half is red and its right half blue, so that
 * the way it was turned can be seen: shown upright, red is at the bottom.
 */
export function uprightHevcMov(directory: string) {
  const flat = make(directory, "flat-hevc.mov", [
    ...["-f", "lavfi", "-i", "color=c=red:size=640x720:rate=30,pad=1280:720:0:0:blue"],
    ...tone,
    ...["-t", "2", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"],
    ...["-tag:v", "hvc1", "-c:a", "aac"],
  ]);
  return make(directory, "IMG_0007.MOV", [
    ...["-i", flat, "-c", "copy", "-metadata:s:v:0", "rotate=90"],
    ...["-movflags", "use_metadata_tags"],
    ...["-metadata", `com.apple.quicktime.location.ISO6709=${FILMED_AT}`],
    ...["-metadata", `location=${FILMED_AT}`],
  ]);
}

/** A 3 s 1080p H.264/AAC clip of ffmpeg's test picture and a tone, as a phone's camera roll names it. */
export function clip1080p(directory: string) {
  return make(directory, "IMG_0042.mp4", [
    ...["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
    ...tone,
    ...["-t", "3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-shortest"],
  ]);
}

/** A 1 s clip, 160 × 120, as a phone's camera roll names it: the quickest to upload and prepare. */
export function tinyClip(directory: string) {
  return make(directory, "VID_20261202_093012.mp4", [
    ...["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10"],
    ...tone,
    ...["-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-c:a", "aac", "-shortest"],
  ]);
}

/** What ffprobe says of a file's streams and container. */
export function probe(file: string) {
  return JSON.parse(
    execFileSync("ffprobe", [
      ...["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file],
    ]).toString(),
  ) as {
    streams: {
      codec_type: string;
      codec_name: string;
      width?: number;
      height?: number;
      tags?: Record<string, string>;
      side_data_list?: { rotation?: number }[];
    }[];
    format: { format_name: string; duration: string; tags?: Record<string, string> };
  };
}

/** A 6 s clip with its index first (faststart), cut in half: it probes whole, then breaks off. */
export function truncatedClip(directory: string) {
  const whole = make(directory, "whole-fast.mp4", [
    ...["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30"],
    ...tone,
    ...["-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
    ...["-movflags", "+faststart"],
  ]);
  const output = path.join(directory, "cut-short.mp4");
  const bytes = fs.readFileSync(whole);
  fs.writeFileSync(output, bytes.subarray(0, Math.floor(bytes.length / 2)));
  return output;
}

/** Two hours of a tiny blue picture at one frame a second: about 100 KB, made in a second. */
export function twoHourClip(directory: string) {
  return make(directory, "two-hours.mp4", [
    ...["-f", "lavfi", "-i", "color=c=blue:size=32x32:rate=1:duration=7200"],
    ...["-c:v", "libx264", "-preset", "ultrafast"],
  ]);
}

/** One second of picture with 8 sound tracks (a clip may have 4), in an MP4 (a type the upload takes). */
export function eightSoundTrackClip(directory: string) {
  return make(directory, "eight-tracks.mp4", [
    ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=10"],
    ...tone,
    ...["-map", "0:v", ...Array.from({ length: 8 }, () => ["-map", "1:a"]).flat()],
    ...["-t", "1", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
  ]);
}

/**
 * An MP4 of 999 video tracks, each the same second of a 64 by 64 picture
 * (issue 59): about 11 MB, made in a second; read whole, ffprobe needs 1.5 GB
 * for it and writes 2 MB of JSON.
 */
export function manyTrackClip(directory: string) {
  const one = make(directory, "one-track.mp4", [
    ...["-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10:duration=1"],
    ...["-c:v", "libx264", "-preset", "ultrafast"],
  ]);
  return make(directory, "999-tracks.mp4", [
    ...["-i", one],
    ...Array.from({ length: 999 }, () => ["-map", "0:v"]).flat(),
    ...["-c", "copy"],
  ]);
}

/** Two seconds of an 8192 by 8192 grey picture at one frame a second (issue 59): 200 KB. */
export function hugePictureClip(directory: string) {
  return make(directory, "8192-square.mp4", [
    ...["-f", "lavfi", "-i", "color=c=gray:size=8192x8192:rate=1:duration=2"],
    ...["-c:v", "libx264", "-preset", "ultrafast"],
  ]);
}

/** A minute of ffmpeg's 720p test picture: quick to make, about 45 s to prepare on two busy cores. */
export function minuteClip(directory: string) {
  return make(directory, "minute-720p.mp4", [
    ...["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=60"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40"],
  ]);
}

/** The colour at the top and at the bottom of a picture or a clip's first frame, shown upright. */
export function topAndBottomColours(file: string) {
  const pixels = execFileSync("ffmpeg", [
    ...["-v", "error", "-i", file, "-frames:v", "1", "-vf", "scale=1:2:flags=area"],
    ...["-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
  ]);
  const colour = (offset: number) => {
    const [red = 0, , blue = 0] = pixels.subarray(offset, offset + 3);
    return red > blue ? "red" : "blue";
  };
  return { top: colour(0), bottom: colour(3) };
}

/** The top-level MP4 boxes in order: faststart puts `moov` before `mdat`. */
export function topLevelBoxes(file: string) {
  const bytes = fs.readFileSync(file);
  const boxes: string[] = [];
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(offset);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    if (size === 1) size = Number(bytes.readBigUInt64BE(offset + 8));
    if (size === 0) size = bytes.length - offset;
    boxes.push(type);
    offset += size;
  }
  return boxes;
}
