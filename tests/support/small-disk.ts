import fs from "node:fs";
import path from "node:path";
import type { Launch } from "./app-server";

/**
 * A small disk for one child process: a tmpfs of `bytes` mounted over
 * `folder` inside a user and mount namespace of the child's own (`unshare
 * --user --map-root-user --mount`), so no root is needed, nothing is mounted
 * for anyone else, and the mount goes with the process. What `folder` holds
 * when the child starts (a test's seeded database) is copied onto it. The
 * child sees the small disk at `folder`; this process reaches it through
 * /proc/<pid>/root, once `seenBy` has named the child.
 */
export class SmallDisk {
  private pid: number | null = null;

  constructor(
    readonly folder: string,
    readonly bytes: number,
  ) {}

  /** Starts a command with `folder` the small disk (for startBuiltServer's `launch`). */
  readonly launch: Launch = (command, args) => [
    "unshare",
    [
      "--user",
      "--map-root-user",
      "--mount",
      "sh",
      "-c",
      [
        "set -e",
        'seed="$(mktemp -d)"',
        'cp -a "$1/." "$seed/"',
        'mount -t tmpfs -o "size=$2" small-disk "$1"',
        'cp -a "$seed/." "$1/"',
        'rm -rf "$seed"',
        "shift 2",
        'exec "$@"',
      ].join("\n"),
      "small-disk",
      this.folder,
      String(this.bytes),
      command,
      ...args,
    ],
  ];

  /** The process started with `launch`, through whose root this one sees the small disk. */
  seenBy(pid: number) {
    this.pid = pid;
    if (this.freeBytes() > this.bytes) {
      throw new Error(`${this.folder} is not a small disk for process ${pid}: did unshare fail?`);
    }
  }

  /** A path on the small disk. */
  path(...parts: string[]) {
    if (this.pid === null) throw new Error("No process named yet: call seenBy(pid)");
    return path.join(`/proc/${this.pid}/root`, this.folder, ...parts);
  }

  freeBytes() {
    const volume = fs.statfsSync(this.path());
    return volume.bavail * volume.bsize;
  }

  /**
   * Another program's file on the same volume (a log, say) grows or shrinks
   * until `bytes` are free, to the page.
   */
  leaveFree(bytes: number) {
    const file = this.path("another-program.log");
    const handle = fs.openSync(file, "a");
    try {
      const size = fs.fstatSync(handle).size;
      const growth = this.freeBytes() - bytes;
      if (growth < 0) {
        fs.ftruncateSync(handle, Math.max(0, size + growth));
        return;
      }
      const zeros = Buffer.alloc(Math.min(growth, 1024 * 1024));
      for (let written = 0; written < growth; ) {
        written += fs.writeSync(handle, zeros, 0, Math.min(zeros.length, growth - written));
      }
    } finally {
      fs.closeSync(handle);
    }
  }
}
