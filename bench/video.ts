import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { prepareVideo } from "~/modules/files/video-processing.server";
import {
  freePort,
  requireBuild,
  type Server,
  signIn,
  startServer,
  stopServer,
  waitForHealth,
} from "./support/app-server";
import { seedDashboard } from "./support/dashboard-fixture";
import { type Run, runBenchmark } from "./support/run";

/**
 * `npm run bench:video`: a 20 s 1080p30 clip with sound, made by ffmpeg,
 * prepared as the app prepares every video (prepareVideo: probe, transcode to
 * 720p H.264/AAC, poster; ffmpeg at nice 19). Prints the transcode's seconds
 * per second of video and ffmpeg's peak memory (VmHWM, read from /proc every
 * 50 ms), then the signed-in dashboard's p99 under load while idle and while
 * the same clip is transcoded (target: at most 2x idle). The transcode runs
 * in this process's ffmpeg child, beside the production server: the CPU is
 * what they share, as the app's own ffmpeg child would share it. Linux only;
 * needs `npm run build` (the npm script does it).
 */
const CLIP_SECONDS = 20;
const CONNECTIONS = 10;
const LOAD_S = 6;
const TARGET_P99_RATIO = 2;
const WATCHDOG_MS = 240_000;

/** ffmpeg processes started by this one, as /proc sees them. */
function ffmpegChildren() {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
      if (
        /^Name:\s+ffmpeg$/m.test(status) &&
        new RegExp(`^PPid:\\s+${process.pid}$`, "m").test(status)
      ) {
        found.push(Number(entry));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Samples the peak memory of this process's ffmpeg children until stopped; MiB. */
function watchFfmpegMemory() {
  let peakKiB = 0;
  const timer = setInterval(() => {
    for (const pid of ffmpegChildren()) {
      try {
        const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
        peakKiB = Math.max(peakKiB, Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0));
      } catch {
        // Exited between the listing and the read.
      }
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return peakKiB / 1024;
  };
}

async function transcode(clip: string) {
  const started = performance.now();
  const prepared = await prepareVideo(clip, { maxSeconds: 5 * 60 });
  const seconds = (performance.now() - started) / 1000;
  await prepared.remove();
  return seconds;
}

async function p99(url: string, cookie: string, marker: string) {
  const result = await autocannon({
    url,
    headers: { cookie },
    connections: CONNECTIONS,
    duration: LOAD_S,
    timeout: 10,
    verifyBody: (body) => String(body).includes(marker),
  });
  if (result.non2xx > 0 || result.errors > 0 || result.mismatches > 0 || result["2xx"] === 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.mismatches} wrong bodies`,
    );
  }
  return { p99: result.latency.p99, rate: result.requests.average };
}

async function main({ dataDir, killOnTimeout }: Run) {
  requireBuild();
  const clip = path.join(dataDir, "clip.mp4");
  execFileSync("ffmpeg", [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
    ...["-t", String(CLIP_SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18"],
    ...["-c:a", "aac", clip],
  ]);
  const [loadAverage] = os.loadavg();
  console.log(
    `Node ${process.version}, ${os.cpus().length} CPUs, load average ${loadAverage!.toFixed(1)}; a ${CLIP_SECONDS} s 1080p30 clip (${(fs.statSync(clip).size / 1024 / 1024).toFixed(1)} MiB).`,
  );

  const stopWatching = watchFfmpegMemory();
  const alone = await transcode(clip);
  const peakMiB = stopWatching();
  console.log(
    `transcode alone: ${alone.toFixed(1)} s, ${(alone / CLIP_SECONDS).toFixed(2)} s per second of video; ffmpeg peak memory ${peakMiB.toFixed(0)} MiB`,
  );

  let server: Server | null = null;
  try {
    const databasePath = path.join(dataDir, "app.db");
    const { user, firstFolder } = seedDashboard(databasePath);
    const cookie = await signIn(databasePath, user.id);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServer(port, dataDir, { SCHEDULER: "off" });
    killOnTimeout(server.child);
    await waitForHealth(base, server);
    const dashboard = `${base}/folders/${firstFolder.id}`;
    await p99(dashboard, cookie, firstFolder.name); // warm-up
    const idle = await p99(dashboard, cookie, firstFolder.name);
    const transcoding = transcode(clip);
    const busy = await p99(dashboard, cookie, firstFolder.name);
    const busySeconds = await transcoding;
    if (busySeconds < LOAD_S) {
      console.log(`(the transcode ended after ${busySeconds.toFixed(1)} s, before the load did)`);
    }
    const ratio = busy.p99 / idle.p99;
    console.log(
      `dashboard idle: p99 ${idle.p99} ms, ${idle.rate.toFixed(0)} req/s; during a transcode: p99 ${busy.p99} ms, ${busy.rate.toFixed(0)} req/s (the transcode took ${busySeconds.toFixed(1)} s)`,
    );
    console.log(
      `p99 during a transcode / idle: ${ratio.toFixed(2)} (target <= ${TARGET_P99_RATIO}) ${ratio <= TARGET_P99_RATIO ? "PASS" : "MISS"}`,
    );
  } finally {
    if (server) await stopServer(server);
  }
}

await runBenchmark("bench:video", WATCHDOG_MS, main);
