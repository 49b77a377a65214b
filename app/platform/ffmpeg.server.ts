import { type ChildProcess, spawn } from "node:child_process";
import os from "node:os";
import { singleton } from "./singleton.server";

/**
 * Debian's ffmpeg and ffprobe, run as programs (docs/decisions/0205-videos-transcoded-by-ffmpeg.md):
 * a fixed argument list with no shell, at the lowest CPU priority, killed at
 * a deadline. Callers put only their own temporary paths in the arguments,
 * never text a user typed or a user's file name.
 */

/** What is kept of a program's stderr, for the log: its last bytes, where ffmpeg says what went wrong. */
const STDERR_KEPT_BYTES = 64 * 1024;
/** ffprobe's JSON for a clip with a few tracks is a few kilobytes; far more is not a clip. */
const STDOUT_MAX_BYTES = 1024 * 1024;

/** The programs running now, so that shutdown can stop them (a restart starts their work again). */
const running = singleton("media-tools-running", () => new Set<ChildProcess>());

/** Kills every ffmpeg and ffprobe still running: at shutdown, where a transcode must not outlive the server. */
export function stopMediaTools() {
  for (const child of running) child.kill("SIGKILL");
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
    const child = spawn(program, args, {
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: options.timeoutMs,
      killSignal: "SIGKILL",
    });
    const startedAt = Date.now();
    running.add(child);
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
      } else if (stdout.length < STDOUT_MAX_BYTES) {
        stdout += chunk;
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_BYTES);
    });
    child.on("error", (error) => {
      running.delete(child);
      reject(
        new MediaToolError(`${program} could not start: ${error.message}`, stderr, "unavailable"),
      );
    });
    child.on("close", (code, signal) => {
      running.delete(child);
      if (code === 0) return resolve(stdout);
      const killed = signal === "SIGKILL";
      const reason = !killed
        ? "failed"
        : Date.now() - startedAt >= options.timeoutMs
          ? "timed-out"
          : "stopped";
      const messages = {
        failed: `${program} exited with ${code ?? signal}`,
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
  tags?: Record<string, string>;
  side_data_list?: { rotation?: number }[];
};

export type ProbeResult = {
  streams: ProbedStream[];
  format: { format_name?: string; duration?: string; tags?: Record<string, string> };
};

/** ffprobe's view of a file's container and tracks; a MediaToolError if it cannot read it. */
export async function ffprobe(
  inputPath: string,
  { timeoutMs = 30_000 } = {},
): Promise<ProbeResult> {
  const json = await run(
    "ffprobe",
    ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "--", inputPath],
    { timeoutMs },
  );
  const parsed = JSON.parse(json) as Partial<ProbeResult>;
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
