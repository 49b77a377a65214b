import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { singleton } from "./singleton.server";

/**
 * Every temporary file of this process (the spool, the transcodes) lives in
 * one folder of its own under the system's temporary directory, named after
 * the process: `thoughtfully-process-<pid>-<start>`, its start as the kernel
 * counts it (/proc/<pid>/stat), so a later process given the same pid is
 * told apart. An orderly exit removes the folder; a process killed outright
 * (kill -9, the OOM killer) cannot, so the next server's start removes the
 * folders of every process that no longer lives
 * (docs/decisions/0237-media-work-bounded-and-children-die-with-the-server.md).
 *
 * The folder also says what work the process has in hand (`holdWork`), so a
 * server that starts while another lives does not start the same work beside it.
 */

const PREFIX = "thoughtfully-process-";
const FOLDER_NAME = /^thoughtfully-process-(\d+)-(\d+)$/;
const HELD = "held";

/** When the process started, in clock ticks since boot; null when no such process lives. */
export function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command's name, in parentheses, may hold spaces and parentheses: count from the last one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // The 22nd field, `starttime`; the fields after the name begin at the 3rd.
  return fields[22 - 3] ?? null;
}

/** Made on first use, not at import: under the temporary directory of that moment. */
const ownFolder = () =>
  singleton("process-folder", () => {
    const start = processStart(process.pid);
    if (start === null) throw new Error("/proc is needed to name this process's folder (Linux)");
    const folder = path.join(os.tmpdir(), `${PREFIX}${process.pid}-${start}`);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    process.once("exit", () => fs.rmSync(folder, { recursive: true, force: true }));
    return folder;
  });

/** This process's folder, or a folder of it by `name`, made on first use. */
export function processFolder(name?: string) {
  if (name === undefined) return ownFolder();
  const folder = path.join(ownFolder(), name);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  return folder;
}

/** The folders of processes of this machine, and whether each owner still lives. */
function processFolders() {
  let entries: string[];
  try {
    entries = fs.readdirSync(os.tmpdir());
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const match = FOLDER_NAME.exec(entry);
    if (!match) return [];
    const [, pid, start] = match;
    return [{ folder: path.join(os.tmpdir(), entry), alive: processStart(Number(pid)) === start }];
  });
}

/** At start: removes what processes that no longer live left behind; the folders removed. */
export function removeFoldersOfDeadProcesses() {
  const dead = processFolders().filter((entry) => !entry.alive);
  for (const { folder } of dead) fs.rmSync(folder, { recursive: true, force: true });
  return dead.map((entry) => entry.folder);
}

/**
 * Marks a piece of work (`kind`, `id`) as in hand in this process, until the
 * returned function is called or the process ends (its folder goes with it).
 */
export function holdWork(kind: string, id: string | number) {
  const marker = path.join(processFolder(path.join(HELD, kind)), String(id));
  fs.writeFileSync(marker, "");
  return () => fs.rmSync(marker, { force: true });
}

/** The ids of the work of `kind` that living processes of this machine have in hand. */
export function workHeldByLivingProcesses(kind: string) {
  const held = new Set<string>();
  for (const { folder, alive } of processFolders()) {
    if (!alive) continue;
    try {
      for (const id of fs.readdirSync(path.join(folder, HELD, kind))) held.add(id);
    } catch {
      // Holds none of this kind.
    }
  }
  return held;
}
