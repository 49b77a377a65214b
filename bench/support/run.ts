import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type Run = {
  /** A fresh directory for the run's database, files and outbox; removed afterwards. */
  dataDir: string;
  /** A child process to kill should the run pass its time limit. */
  killOnTimeout: (child: ChildProcess) => void;
};

/**
 * How every benchmark runs: in a throwaway data directory, stopped outright
 * (its children killed) once it takes longer than `watchdogMs`, and reporting
 * a failure as one line and a non-zero exit code.
 */
export async function runBenchmark(
  name: string,
  watchdogMs: number,
  body: (run: Run) => Promise<void>,
) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `thoughtfully-${name.replace(":", "-")}-`));
  const children: ChildProcess[] = [];
  const watchdog = setTimeout(() => {
    console.error(`Benchmark took longer than ${watchdogMs / 1000} s; stopping.`);
    for (const child of children) child.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(2);
  }, watchdogMs);
  try {
    await body({ dataDir, killOnTimeout: (child) => children.push(child) });
  } catch (error) {
    console.error(`${name} failed: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}
