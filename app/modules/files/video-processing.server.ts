import fs from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "~/modules/plans/limits";
import { RuleError } from "~/platform/errors.server";
import {
  ffmpeg,
  ffprobe,
  MediaToolError,
  type ProbedStream,
  type ProbeResult,
} from "~/platform/ffmpeg.server";
import { processFolder } from "~/platform/process-folder.server";
import { singleton } from "~/platform/singleton.server";
import { WorkLane } from "~/platform/work-lane.server";

/**
 * A sender's clip made into what every recipient's browser plays
 * (docs/decisions/0205-videos-transcoded-by-ffmpeg.md): probed, refused early
 * if it breaks a rule (docs/decisions/0204-videos-are-their-own-item.md),
 * transcoded to a 720p H.264/AAC MP4 with faststart and no metadata, and a
 * poster JPEG taken from it. The paths handed to ffmpeg are the caller's
 * temporary file and our own temporary directory, never a user's file name.
 */

export type VideoRejection =
  | "NOT_A_VIDEO"
  | "TOO_LONG"
  | "TOO_LARGE_PICTURE"
  | "TOO_MANY_FRAMES"
  | "TOO_MANY_TRACKS"
  | "DAMAGED";

export class VideoRejectedError extends RuleError {
  override name = "VideoRejectedError";
  constructor(
    readonly code: VideoRejection,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

const NOT_A_VIDEO_MESSAGE =
  "This file could not be read as a video: it may not be one, or it may be damaged or cut short. Videos must be clips from a phone or a camera (MP4, MOV or WebM).";
const DAMAGED_MESSAGE =
  "This video could not be read to the end: it may be damaged or cut short. Please upload it again.";

function lengthText(seconds: number) {
  return seconds % 60 === 0 && seconds >= 120 ? `${seconds / 60} minutes` : `${seconds} seconds`;
}

/** A clip a little over its length (a phone's 60.3 seconds) is taken, and so is its work. */
const LENGTH_TOLERANCE_SECONDS = 0.5;

/** The refusal of a clip past the sender's limit, naming it (and Premium's, to a free sender). */
export function tooLongMessage(maxSeconds: number) {
  const premium = LIMITS.video.maxSecondsPremium;
  return maxSeconds < premium
    ? `Videos can be up to ${lengthText(maxSeconds)} long (${lengthText(premium)} with Premium).`
    : `Videos can be up to ${lengthText(maxSeconds)} long.`;
}

/** Containers a phone or a camera writes, as ffprobe names them; an image, a GIF or a sound file is not a clip. */
const CLIP_CONTAINERS = new Set([
  "mov",
  "mp4",
  "m4a",
  "3gp",
  "3g2",
  "mj2",
  "matroska",
  "webm",
  "avi",
  "mpegts",
]);
/** Transfer functions of HDR video (iPhones film HLG; PQ is HDR10's). */
const HDR_TRANSFERS = new Set(["smpte2084", "arib-std-b67"]);

export type VideoProbe = {
  durationSeconds: number;
  /** As shown, after the clip's rotation. */
  width: number;
  height: number;
  hasSound: boolean;
  hdr: boolean;
};

/** Frames a second from ffprobe's fraction ("30000/1001"); null when it does not know ("0/0"). */
function frameRate(fraction: string | undefined) {
  const [numerator, denominator] = (fraction ?? "").split("/").map(Number);
  const rate = Number(numerator) / Number(denominator);
  return Number.isFinite(rate) && rate > 0 ? rate : null;
}

/**
 * The frames a decode of the clip goes through: as the container counts them
 * (MP4, QuickTime), else its average rate over its length. Null when neither
 * is known: the transcode's deadline then bounds the work.
 */
function framesOf(video: ProbedStream, durationSeconds: number) {
  const counted = Number(video.nb_frames);
  if (counted > 0) return counted;
  const rate = frameRate(video.avg_frame_rate) ?? frameRate(video.r_frame_rate);
  return rate === null ? null : rate * durationSeconds;
}

/** Judges a probe against the rules; the first broken rule is thrown as a VideoRejectedError. */
export function judgeProbe(probe: ProbeResult, { maxSeconds }: { maxSeconds: number }): VideoProbe {
  const containers = (probe.format.format_name ?? "").split(",");
  const video = probe.streams.find(
    (stream) => stream.codec_type === "video" && stream.width && stream.height,
  );
  const durationSeconds = Number(probe.format.duration ?? video?.duration);
  if (
    !containers.some((name) => CLIP_CONTAINERS.has(name)) ||
    !video?.width ||
    !video.height ||
    !(durationSeconds > 0)
  ) {
    throw new VideoRejectedError("NOT_A_VIDEO", NOT_A_VIDEO_MESSAGE);
  }
  if (durationSeconds > maxSeconds + LENGTH_TOLERANCE_SECONDS) {
    throw new VideoRejectedError("TOO_LONG", tooLongMessage(maxSeconds));
  }
  if (Math.max(video.width, video.height) > LIMITS.video.maxPixelsWide) {
    throw new VideoRejectedError(
      "TOO_LARGE_PICTURE",
      `This video's picture is ${video.width} by ${video.height} pixels; videos can be at most ${LIMITS.video.maxPixelsWide} pixels on their long side.`,
    );
  }
  if (video.width * video.height > LIMITS.video.maxPixelsPerFrame) {
    throw new VideoRejectedError(
      "TOO_LARGE_PICTURE",
      `This video's picture is ${video.width} by ${video.height} pixels, larger than 4K. Please send a copy of it in 4K (3840 by 2160) or smaller.`,
    );
  }
  // Decoding costs by the pixel: the most a clip may ask is 4K at 120 frames a second for the sender's length.
  const frames = framesOf(video, durationSeconds);
  const maxWork = LIMITS.video.maxPixelsPerSecond * (maxSeconds + LENGTH_TOLERANCE_SECONDS);
  if (frames !== null && video.width * video.height * frames > maxWork) {
    const perSecond = Math.round(frames / durationSeconds);
    throw new VideoRejectedError(
      "TOO_MANY_FRAMES",
      `This video has too many frames to prepare (${video.width} by ${video.height} pixels, ${perSecond} frames a second, ${Math.round(durationSeconds)} seconds). A video can be up to 4K at 120 frames a second for its full length; please send a shorter clip, or one filmed at fewer frames a second.`,
    );
  }
  const soundTracks = probe.streams.filter((stream) => stream.codec_type === "audio").length;
  if (soundTracks > LIMITS.video.maxAudioTracks) {
    throw new VideoRejectedError(
      "TOO_MANY_TRACKS",
      `This video has ${soundTracks} sound tracks; a clip can have at most ${LIMITS.video.maxAudioTracks}.`,
    );
  }
  const rotation = video.side_data_list?.find((data) => data.rotation !== undefined)?.rotation ?? 0;
  const sideways = Math.abs(rotation) % 180 === 90;
  return {
    durationSeconds,
    width: sideways ? video.height : video.width,
    height: sideways ? video.width : video.height,
    hasSound: soundTracks > 0,
    hdr: HDR_TRANSFERS.has(video.color_transfer ?? ""),
  };
}

/** Only what the rules read: the JSON stays a few kilobytes, whatever tags a file carries. */
const PROBE_ENTRIES =
  "format=format_name,duration" +
  ":stream=index,codec_type,codec_name,width,height,color_transfer,duration,avg_frame_rate,r_frame_rate,nb_frames" +
  ":stream_side_data=rotation";

/**
 * ffprobe, bounded (tracks read, headers only), then the rules. Every file
 * it cannot read is NOT_A_VIDEO, refused at once: the file's fault, never
 * tried again. Only a fault that is not the file's (a timeout, shutdown,
 * ffprobe missing) is thrown as it is, for the caller to try again.
 */
export async function probeVideo(inputPath: string, { maxSeconds }: { maxSeconds: number }) {
  let probe: ProbeResult;
  try {
    probe = await ffprobe(inputPath, {
      maxStreams: LIMITS.video.maxStreams,
      headersOnly: true,
      entries: PROBE_ENTRIES,
    });
  } catch (error) {
    if (error instanceof MediaToolError && error.reason === "failed") {
      throw new VideoRejectedError("NOT_A_VIDEO", NOT_A_VIDEO_MESSAGE, { cause: error });
    }
    throw error;
  }
  return judgeProbe(probe, { maxSeconds });
}

const { storedShortSide: SHORT, storedLongSide: LONG, storedMaxFps } = LIMITS.video;

/**
 * Fits the picture in 1280 by 720 (720 by 1280 upright), never larger than it
 * came, even sides (H.264's 4:2:0 needs them). ffmpeg turns the picture
 * upright before this filter (its autorotate), so `iw` and `ih` are as shown.
 */
const SCALE =
  `scale=w='if(gte(iw,ih),min(${LONG},iw),min(${SHORT},iw))'` +
  `:h='if(gte(iw,ih),min(${SHORT},ih),min(${LONG},ih))'` +
  ":force_original_aspect_ratio=decrease:force_divisible_by=2,setsar=1";

/** HDR (PQ or HLG) brought to the BT.709 that every screen shows, after scaling (fewer pixels to map). */
const TONEMAP =
  "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709," +
  "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv";

/** The transcode's fixed argument list: only the two paths and numbers of our own vary. */
export function transcodeArguments(
  inputPath: string,
  outputPath: string,
  probe: VideoProbe,
  maxSeconds: number,
) {
  const filter = [SCALE, ...(probe.hdr ? [TONEMAP] : []), "format=yuv420p"].join(",");
  return [
    "-y",
    // The decoder's bounds, again: a track that grows past its probed size mid-way is cut off there.
    // One decoding thread: frame threads each hold frames, and the encoder sets the pace anyway.
    ...["-threads", "1"],
    ...["-max_streams", String(LIMITS.video.maxStreams)],
    ...["-max_pixels", String(LIMITS.video.maxPixelsPerFrame)],
    "-i",
    inputPath,
    "-t",
    String(maxSeconds),
    "-map",
    "0:v:0",
    "-map",
    "0:a:0?",
    "-map_metadata",
    "-1",
    "-map_metadata:s",
    "-1",
    "-map_chapters",
    "-1",
    "-sn",
    "-dn",
    "-vf",
    filter,
    "-fpsmax",
    String(storedMaxFps),
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "23",
    "-profile:v",
    "high",
    "-pix_fmt",
    "yuv420p",
    "-color_primaries",
    "bt709",
    "-color_trc",
    "bt709",
    "-colorspace",
    "bt709",
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-ac",
    "2",
    "-movflags",
    "+faststart",
    "-fflags",
    "+bitexact",
    "-f",
    "mp4",
    outputPath,
  ];
}

/** A frame at one second (or the middle of a shorter clip) of the transcoded clip, as a JPEG. */
export function posterArguments(videoPath: string, posterPath: string, durationSeconds: number) {
  const at = Math.min(1, durationSeconds / 2).toFixed(3);
  return [
    "-y",
    "-ss",
    at,
    "-i",
    videoPath,
    "-frames:v",
    "1",
    "-map_metadata",
    "-1",
    "-q:v",
    "3",
    "-f",
    "image2",
    "-update",
    "1",
    posterPath,
  ];
}

export type PreparedVideo = {
  videoPath: string;
  posterPath: string;
  durationSeconds: number;
  width: number;
  height: number;
  /** Removes the prepared files; safe to call twice. */
  remove(): Promise<void>;
};

/** Transcodes take every CPU they are given: one at a time, the rest wait their turn. */
const lane = singleton("video-transcode-lane", () => new WorkLane(1));
/** How long a clip may wait for the one before it: a full Premium clip's deadline, and some. */
const LANE_WAIT_MS = 60 * 60_000;

/** Ten times the clip's length and a minute: a 2-CPU machine at low priority does better than real time. */
const deadlineMs = (durationSeconds: number) => 60_000 + 10_000 * Math.ceil(durationSeconds);

/**
 * Probes, transcodes and takes the poster, one clip at a time. `onProgress`
 * hears the share done (0 to 1) from ffmpeg's own progress. A refusal is a
 * VideoRejectedError; either way nothing of ours is left on disk (the input
 * is the caller's to remove).
 */
export async function prepareVideo(
  inputPath: string,
  { maxSeconds, onProgress }: { maxSeconds: number; onProgress?: (share: number) => void },
): Promise<PreparedVideo> {
  const probe = await probeVideo(inputPath, { maxSeconds });
  const leave = await lane.enter({ waitMs: LANE_WAIT_MS });
  if (!leave) throw new Error("The video lane stayed busy past its wait");
  let directory: string;
  try {
    directory = await fs.mkdtemp(path.join(processFolder("videos"), "clip-"));
  } catch (error) {
    leave();
    throw error;
  }
  const remove = () => fs.rm(directory, { recursive: true, force: true });
  try {
    const videoPath = path.join(directory, "video.mp4");
    const posterPath = path.join(directory, "poster.jpg");
    const expectedSeconds = Math.min(probe.durationSeconds, maxSeconds);
    try {
      await ffmpeg(transcodeArguments(inputPath, videoPath, probe, maxSeconds), {
        timeoutMs: deadlineMs(expectedSeconds),
        onProgress: (written) => onProgress?.(Math.min(1, written / expectedSeconds)),
      });
    } catch (error) {
      if (error instanceof MediaToolError && error.reason === "failed") {
        throw new VideoRejectedError("DAMAGED", DAMAGED_MESSAGE, { cause: error });
      }
      throw error;
    }
    const made = await ffprobe(videoPath);
    const madeSeconds = Number(made.format.duration);
    // A clip cut short (a truncated upload) decodes to its break and stops there, often without an error.
    if (!(madeSeconds >= expectedSeconds - 1)) {
      throw new VideoRejectedError("DAMAGED", DAMAGED_MESSAGE);
    }
    await ffmpeg(posterArguments(videoPath, posterPath, madeSeconds), { timeoutMs: 60_000 });
    const shown = made.streams.find((stream) => stream.codec_type === "video");
    onProgress?.(1);
    return {
      videoPath,
      posterPath,
      durationSeconds: madeSeconds,
      width: shown?.width ?? probe.width,
      height: shown?.height ?? probe.height,
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  } finally {
    leave();
  }
}
