import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { startBuiltServer, tempDir, thisFilesDataDir, waitUntil } from "../support/integration";
import { minuteClip } from "../support/video-clips";

/**
 * Issue 59: a server killed outright (kill -9) mid-transcode. Its ffmpeg must
 * die with it (setpriv's parent-death signal), and the next server must
 * remove the temporary files it left (its process folder) and start the clip
 * again. The production build, the real ffmpeg, a clip made by ffmpeg; the
 * servers share this file's database and storage. Needs `npm run build` first.
 */
const { db } = await import("~/platform/db.server");
const { storage } = await import("~/platform/storage.server");
const clips = tempDir();
const serverTmp = tempDir();

/** State, parent and command of a process, from /proc; null when it does not exist. */
function processInfo(pid: number) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return { state, parent: Number(parent), command };
  } catch {
    return null;
  }
}

/** Alive: exists and is not a zombie waiting for a parent to reap it. */
const alive = (pid: number) => {
  const info = processInfo(pid);
  return info !== null && info.state !== "Z";
};

/** The pid of the transcode (ffmpeg writing a progress report) a server started, if one runs. */
function transcodeOf(serverPid: number) {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = processInfo(Number(entry));
    if (
      info?.parent === serverPid &&
      info.command[0] === "ffmpeg" &&
      info.command.includes("-progress")
    ) {
      return Number(entry);
    }
  }
  return undefined;
}

/** The files under a server's own temporary folder (app/platform/process-folder.server.ts). */
function filesOf(folder: string) {
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)));
}

test("kill -9 mid-transcode: ffmpeg dies with the server, and the next server removes what it left and starts the clip again", async () => {
  const clip = minuteClip(clips);
  const user = createUser(db);
  const folder = createFolder(db, user.id);
  const source = await storage.put(fs.createReadStream(clip));
  createItem(db, folder.id, {
    type: "video",
    filePaths: [source.key],
    fileNames: ["A minute.mp4"],
    fileSizes: [source.size],
    mimeTypes: ["video/mp4"],
    videoStatus: "preparing",
  });
  const env = { SCHEDULER: "on", TMPDIR: serverTmp };
  const options = { dataDir: thisFilesDataDir() };

  // The first server takes the clip at start and transcodes it.
  const first = await startBuiltServer(env, options);
  const firstPid = first.child.pid!;
  await waitUntil(
    () => transcodeOf(firstPid) !== undefined,
    60_000,
    "the first server's transcode",
  );
  const transcode = transcodeOf(firstPid)!;
  const [firstFolder] = fs
    .readdirSync(serverTmp)
    .filter((entry) => entry.startsWith(`thoughtfully-process-${firstPid}-`))
    .map((entry) => path.join(serverTmp, entry));
  expect(firstFolder).toBeDefined();
  // The clip copied from storage, and the transcode's output as it is written.
  expect(filesOf(firstFolder!).length).toBeGreaterThanOrEqual(1);

  first.child.kill("SIGKILL");
  expect((await first.exited).signal).toBe("SIGKILL");
  // The clip takes about 45 s to transcode: it is gone at once or not at all.
  await waitUntil(() => !alive(transcode), 10_000, "ffmpeg ended with its server");
  expect(fs.existsSync(firstFolder!)).toBe(true);

  // The next server removes the dead one's folder before anything else, and starts the clip again.
  const second = await startBuiltServer(env, options);
  expect(fs.existsSync(firstFolder!)).toBe(false);
  const secondPid = second.child.pid!;
  await waitUntil(
    () => transcodeOf(secondPid) !== undefined,
    60_000,
    "the second server's transcode",
  );
  const again = transcodeOf(secondPid)!;
  expect(second.stderr()).not.toMatch(/\[videos\]/);

  // An orderly stop ends its transcode too and removes its own folder.
  await second.stop();
  expect(alive(again)).toBe(false);
  expect(
    fs.readdirSync(serverTmp).filter((entry) => entry.startsWith("thoughtfully-process-")),
  ).toEqual([]);
}, 180_000);
