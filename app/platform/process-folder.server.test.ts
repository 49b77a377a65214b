import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  holdWork,
  processFolder,
  processStart,
  removeFoldersOfDeadProcesses,
  workHeldByLivingProcesses,
} from "./process-folder.server";

/**
 * Real processes: this test's own, a `sleep` that lives while the test runs,
 * and a shell that has ended. TMPDIR is a folder of this test's own.
 */

let tmp: string;
let previousTmp: string | undefined;
let sleeper: ChildProcess;

beforeAll(() => {
  previousTmp = process.env.TMPDIR;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "process-folder-test-"));
  process.env.TMPDIR = tmp;
  sleeper = spawn("sleep", ["600"], { stdio: "ignore" });
});

afterAll(() => {
  sleeper.kill("SIGKILL");
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A process that has ended: a shell that said its pid and exited. */
const endedPid = () => Number(execFileSync("sh", ["-c", "echo $$"]).toString().trim());

function folderOf(pid: number, start: string, held: string[] = []) {
  const folder = path.join(tmp, `thoughtfully-process-${pid}-${start}`);
  fs.mkdirSync(path.join(folder, "held", "video-items"), { recursive: true });
  fs.writeFileSync(path.join(folder, "spool-file"), "half a clip");
  for (const id of held) fs.writeFileSync(path.join(folder, "held", "video-items", id), "");
  return folder;
}

describe("a process's folder", () => {
  test("is named after the process and when it started, under the temporary directory", () => {
    const start = processStart(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(processFolder()).toBe(path.join(tmp, `thoughtfully-process-${process.pid}-${start}`));
    expect(processFolder("spool")).toBe(path.join(processFolder(), "spool"));
    expect(fs.statSync(processFolder("spool")).isDirectory()).toBe(true);
  });

  test("at start, the folders of ended processes go, and those of living ones stay", () => {
    const sleeperStart = processStart(sleeper.pid!);
    expect(sleeperStart).not.toBeNull();
    const living = folderOf(sleeper.pid!, sleeperStart!);
    const ended = folderOf(endedPid(), "12345");
    // The sleeper's pid, but another start: a process that had its pid before it.
    const pidTakenSince = folderOf(sleeper.pid!, `${sleeperStart}0`);
    const unrelated = path.join(tmp, "thoughtfully-test-abc");
    fs.mkdirSync(unrelated);

    expect(removeFoldersOfDeadProcesses().sort()).toEqual([ended, pidTakenSince].sort());
    expect(fs.existsSync(living)).toBe(true);
    expect(fs.existsSync(processFolder())).toBe(true);
    expect(fs.existsSync(unrelated)).toBe(true);
    expect(fs.existsSync(ended)).toBe(false);
    fs.rmSync(living, { recursive: true });
  });

  test("says what work living processes have in hand, this one's included, and not what ended ones had", () => {
    const sleeperStart = processStart(sleeper.pid!)!;
    const living = folderOf(sleeper.pid!, sleeperStart, ["7"]);
    folderOf(endedPid(), "1", ["8"]);
    const release = holdWork("video-items", 9);
    expect([...workHeldByLivingProcesses("video-items")].sort()).toEqual(["7", "9"]);
    release();
    expect([...workHeldByLivingProcesses("video-items")]).toEqual(["7"]);
    expect([...workHeldByLivingProcesses("something-else")]).toEqual([]);
    fs.rmSync(living, { recursive: true });
  });
});
