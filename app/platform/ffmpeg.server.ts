import { spawn } from "node:child_process";
import os from "node:os";

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

export class MediaToolError extends Error {
  override name = "MediaToolError";
  constructor(
    message: string,
    readonly stderr: string,
    readonly timedOut = false,
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
    child.on("error", (error) =>
      reject(new MediaToolError(`${program} could not start: ${error.message}`, stderr)),
    );
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(stdout);
      const timedOut = signal === "SIGKILL";
      reject(
        new MediaToolError(
          timedOut
            ? `${program} ran past ${options.timeoutMs} ms and was stopped`
            : `${program} exited with ${code ?? signal}`,
          stderr,
          timedOut,
        ),
      );
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
