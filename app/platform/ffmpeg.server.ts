import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import { singleton } from "./singleton.server";

/**
 * Debian's ffmpeg and ffprobe, run as programs (docs/decisions/0205-videos-transcoded-by-ffmpeg.md):
 * a fixed argument list with no shell, at the lowest CPU priority, killed at
 * a deadline. Callers put only their own temporary paths in the arguments,
 * never text a user typed or a user's file name.
 *
 * Each runs in a process group of its own, under util-linux's `setpriv
 * --pdeathsig KILL`: the kernel kills it when the thread that started it
 * ends, whatever ends the server (kill -9 and the OOM killer included, which
 * no handler in Node sees). Only the main thread starts them: the transcodes
 * run there, not on the scheduler's thread
 * (docs/decisions/0237-media-work-bounded-and-children-die-with-the-server.md).
 */

/** What is kept of a program's stderr, for the log: its last bytes, where ffmpeg says what went wrong. */
const STDERR_KEPT_BYTES = 64 * 1024;
/** ffprobe's JSON for a clip with a few tracks is a few kilobytes; far more is not a clip. */
const STDOUT_MAX_BYTES = 1024 * 1024;
/** setpriv's exit when it cannot execute the program: 127 not found, 126 not executable. */
const PROGRAM_MISSING_CODES = new Set([126, 127]);

/** The programs running now, so that shutdown can stop them (a restart starts their work again). */
const running = singleton("media-tools-running", () => new Set<ChildProcess>());

/** Kills a program and anything it started: its whole process group. */
function killGroup(child: ChildProcess) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** Kills every ffmpeg and ffprobe still running: at shutdown, where a transcode must not outlive the server. */
export function stopMediaTools() {
  for (const child of running) killGroup(child);
}

/**
 * A program that did not finish its work: "failed" is the file's fault (ffmpeg
 * said why, in `stderr`); "timed-out", "stopped" (shutdown) and "unavailable"
 * (not installed) are not.
 */
export class MediaToolError extends Error {
  override name = "MediaToolError";
  constructor(
    message: string,
    readonly stderr: string,
    readonly reason: "failed" | "timed-out" | "stopped" | "unavailable" = "failed",
  ) {
    super(message);
  }
}

type RunOptions = {
  timeoutMs: number;
  /** Each complete line of stdout as it arrives (ffmpeg's `-progress pipe:1`); otherwise stdout is collected. */
  onLine?: (line: string) => void;
};

function run(program: "ffmpeg" | "ffprobe", args: readonly string[], options: RunOptions) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn("setpriv", ["--pdeathsig", "KILL", "--", program, ...args], {
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
      // A process group (and session) of its own: killed whole, and deaf to the terminal's Ctrl-C.
      detached: true,
    });
    running.add(child);
    let ending: "timed-out" | "too-much-output" | null = null;
    const end = (why: typeof ending) => {
      ending ??= why;
      killGroup(child);
    };
    const deadline = setTimeout(() => end("timed-out"), options.timeoutMs);
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, 19);
      } catch {
        // Gone already (it failed at once): its exit says why.
      }
    }
    let stdout = "";
    let partial = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (options.onLine) {
        const lines = (partial + chunk).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) options.onLine(line.trim());
        return;
      }
      stdout += chunk;
      if (stdout.length > STDOUT_MAX_BYTES) end("too-much-output");
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_BYTES);
    });
    const settle = () => {
      clearTimeout(deadline);
      running.delete(child);
    };
    child.on("error", (error) => {
      settle();
      reject(
        new MediaToolError(`${program} could not start: ${error.message}`, stderr, "unavailable"),
      );
    });
    child.on("close", (code, signal) => {
      settle();
      if (code === 0 && ending === null) return resolve(stdout);
      if (code !== null && PROGRAM_MISSING_CODES.has(code)) {
        return reject(
          new MediaToolError(`${program} could not start (${code})`, stderr, "unavailable"),
        );
      }
      const reason =
        ending === "timed-out"
          ? "timed-out"
          : signal === "SIGKILL" && !ending
            ? "stopped"
            : "failed";
      const messages = {
        failed:
          ending === "too-much-output"
            ? `${program} wrote more than ${STDOUT_MAX_BYTES} bytes and was stopped`
            : `${program} exited with ${code ?? signal}`,
        "timed-out": `${program} ran past ${options.timeoutMs} ms and was stopped`,
        stopped: `${program} was stopped (the server is shutting down)`,
      };
      reject(new MediaToolError(messages[reason], stderr, reason));
    });
  });
}

export type ProbedStream = {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  color_transfer?: string;
  duration?: string;
  /** Frames a second, as a fraction ("30000/1001"; "0/0" when unknown). */
  avg_frame_rate?: string;
  r_frame_rate?: string;
  /** Frames in the track, where the container counts them (MP4 and QuickTime do). */
  nb_frames?: string;
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
};

export type ProbeResult = {
  streams: ProbedStream[];
  format: { format_name?: string; duration?: string; tags?: Record<string, string> };
};

type ProbeOptions = {
  timeoutMs?: number;
  /** Tracks read at most (the demuxer's `-max_streams`): past it, the file is refused unread. */
  maxStreams?: number;
  /**
   * Reads the tracks' headers and decodes no picture (`-skip_frame all`): sizes, rates, colours
   * and rotation are all in the headers, and a huge frame costs nothing to look at.
   */
  headersOnly?: boolean;
  /** Only these fields (`-show_entries`), e.g. `format=duration:stream=width`; otherwise every field. */
  entries?: string;
};

/**
 * ffprobe's view of a file's container and tracks; a MediaToolError if it
 * cannot read it ("failed": the file's fault, its JSON too long or broken included).
 */
export async function ffprobe(
  inputPath: string,
  { timeoutMs = 30_000, maxStreams, headersOnly = false, entries }: ProbeOptions = {},
): Promise<ProbeResult> {
  const json = await run(
    "ffprobe",
    [
      ...["-v", "error"],
      ...(maxStreams === undefined ? [] : ["-max_streams", String(maxStreams)]),
      ...(headersOnly ? ["-skip_frame", "all"] : []),
      ...["-print_format", "json"],
      ...(entries === undefined ? ["-show_format", "-show_streams"] : ["-show_entries", entries]),
      ...["--", inputPath],
    ],
    { timeoutMs },
  );
  let parsed: Partial<ProbeResult>;
  try {
    parsed = JSON.parse(json) as Partial<ProbeResult>;
  } catch (error) {
    throw new MediaToolError(`ffprobe's answer is not JSON: ${String(error)}`, "", "failed");
  }
  return { streams: parsed.streams ?? [], format: parsed.format ?? {} };
}

/**
 * Runs ffmpeg with `args` (which must not set their own progress output),
 * reporting the seconds of output written so far from ffmpeg's own
 * `-progress pipe:1` lines.
 */
export async function ffmpeg(
  args: readonly string[],
  { timeoutMs, onProgress }: { timeoutMs: number; onProgress?: (secondsWritten: number) => void },
): Promise<void> {
  await run("ffmpeg", ["-nostdin", "-hide_banner", "-nostats", "-progress", "pipe:1", ...args], {
    timeoutMs,
    onLine: (line) => {
      const match = /^out_time_us=(\d+)$/.exec(line);
      if (match && onProgress) onProgress(Number(match[1]) / 1_000_000);
    },
  });
}
