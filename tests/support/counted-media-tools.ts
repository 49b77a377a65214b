import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * The real ffmpeg and ffprobe, counted: a folder put first on this process's
 * PATH holds a script of each name that writes a line to a log and executes
 * the real program in its place (same process, same arguments). The app
 * finds them as it finds the real ones, so a test sees how many times each ran.
 */
export function countMediaTools(directory: string) {
  const bin = path.join(directory, "counted-bin");
  const log = path.join(directory, "media-tool-runs.log");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(log, "");
  for (const program of ["ffmpeg", "ffprobe"] as const) {
    const real = execFileSync("sh", ["-c", `command -v ${program}`])
      .toString()
      .trim();
    fs.writeFileSync(
      path.join(bin, program),
      `#!/bin/sh\necho ${program} >> '${log}'\nexec '${real}' "$@"\n`,
      { mode: 0o755 },
    );
  }
  process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`;
  return {
    /** Runs of `program` since the count began (or since `reset`). */
    runs(program: "ffmpeg" | "ffprobe") {
      return fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line === program).length;
    },
    reset() {
      fs.writeFileSync(log, "");
    },
  };
}
