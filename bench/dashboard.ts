import { execFileSync, spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import {
  freePort,
  procStatusBytes,
  repoRoot,
  type Server,
  signIn,
  startServer,
  stopServer,
  waitForHealth,
  watchServer,
} from "./support/app-server";
import { FOLDER_COUNT, ITEM_COUNT, seedDashboard } from "./support/dashboard-fixture";
import { type Run, runBenchmark } from "./support/run";

/**
 * `npm run bench:dashboard`: the signed-in dashboard (`/folders/<id>`, 5
 * folders, 50 items) against a baseline page padded to the same size with no
 * database or session work (`/bench/minimal`), both served by the production
 * build in one run, on loopback. The two pages take turns, a few seconds
 * each, for several rounds, so a machine that gets busier or quieter during
 * the run weighs on both alike; a warning says when the baseline's own rounds
 * disagree (a busy machine). Prints throughput and latency of both, the ratio
 * and the targets. Last, a bare Node server spending the dashboard's measured
 * time per request shows the latency floor of that cost on this machine.
 * Targets: throughput at least 0.5 of the baseline page's, and p99 within
 * 1.15x of that floor. It makes its own build with the baseline page
 * (`remixBuild`), and the usual one again when it ends.
 */
const CONNECTIONS = 10;
const WARMUP_S = 2;
/** Turns of each page: the ratio is their totals, so drift during the run cancels out. */
const ROUNDS = 5;
const ROUND_S = 3;
/** The baseline's slowest and fastest rounds further apart than this: the machine was busy. */
const MAX_DRIFT = 0.15;
const TARGET_RATIO = 0.5;
/**
 * The dashboard's p99 against the bare server's at the same cost per request:
 * the tail beyond the cost is the machine's and the event loop's, none of it ours.
 */
const TARGET_P99_OVER_FLOOR = 1.15;
/** Everything, start to finish, must fit in this; otherwise the run is killed. */
const WATCHDOG_MS = 150_000;

/** Peak resident memory of a process in MiB (Linux only; null elsewhere). */
function peakRssMiB(pid: number | undefined) {
  try {
    return pid === undefined ? null : procStatusBytes(pid, "VmHWM") / (1024 * 1024);
  } catch {
    return null;
  }
}

/**
 * The same load against a bare Node server that spends the dashboard's
 * measured time per request and answers as many bytes: its p99 is the floor
 * the event loop, the machine and autocannon set for that cost, with no Remix,
 * React or garbage collection in it.
 */
async function busyServerFloor(
  busyMs: number,
  bodyBytes: number,
  killOnTimeout: Run["killOnTimeout"],
) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = watchServer(
    spawn(process.execPath, [path.join(repoRoot, "bench", "support", "busy-server.mjs")], {
      env: {
        ...process.env,
        PORT: String(port),
        BUSY_MS: String(busyMs),
        BODY_BYTES: String(bodyBytes),
      },
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  killOnTimeout(server.child);
  try {
    // It answers every path, /healthz too.
    await waitForHealth(base, server);
    const page = { url: `${base}/`, headers: {}, marker: "x" };
    await load(page.url, page.headers, page.marker, WARMUP_S);
    const turns = newTurns();
    for (let round = 0; round < ROUNDS; round++) {
      addTurn(turns, await load(page.url, page.headers, page.marker, ROUND_S));
    }
    return summarize(turns);
  } finally {
    await stopServer(server);
  }
}

type Page = { url: string; headers: Record<string, string>; marker: string };
type Turns = { requests: number; seconds: number; rates: number[]; p50s: number[]; p99s: number[] };

function newTurns(): Turns {
  return { requests: 0, seconds: 0, rates: [], p50s: [], p99s: [] };
}

function addTurn(turns: Turns, result: autocannon.Result) {
  turns.requests += result.requests.total;
  turns.seconds += result.duration;
  turns.rates.push(result.requests.total / result.duration);
  turns.p50s.push(result.latency.p50);
  turns.p99s.push(result.latency.p99);
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A page's figures over its turns: its rate from the totals, its latencies the median turn's. */
function summarize(turns: Turns) {
  return {
    rate: turns.requests / turns.seconds,
    p50: median(turns.p50s),
    p99: median(turns.p99s),
    requests: turns.requests,
    slowest: Math.min(...turns.rates),
    fastest: Math.max(...turns.rates),
  };
}

/**
 * The two pages in turn, ROUND_S seconds each, for ROUNDS rounds; every other
 * round the dashboard goes first, so neither page always follows the other.
 */
async function takeTurns(minimal: Page, dashboard: Page) {
  const turns = { minimal: newTurns(), dashboard: newTurns() };
  for (let round = 0; round < ROUNDS; round++) {
    const order =
      round % 2 === 0 ? (["minimal", "dashboard"] as const) : (["dashboard", "minimal"] as const);
    for (const name of order) {
      const page = name === "minimal" ? minimal : dashboard;
      addTurn(turns[name], await load(page.url, page.headers, page.marker, ROUND_S));
    }
  }
  return { minimal: summarize(turns.minimal), dashboard: summarize(turns.dashboard) };
}

/** One request by hand first: the status and body say whether the setup is right. */
async function checkPage(url: string, headers: Record<string, string>, mustContain: string) {
  const response = await fetch(url, { headers, redirect: "manual" });
  const body = await response.text();
  if (response.status !== 200) {
    const location = response.headers.get("location");
    throw new Error(
      `GET ${url} answered ${response.status}${location ? ` (to ${location})` : ""}, not 200${
        location?.startsWith("/login") ? ": the session cookie was not accepted" : ""
      }`,
    );
  }
  if (!body.includes(mustContain)) {
    throw new Error(`GET ${url} answered 200 but the page does not contain "${mustContain}"`);
  }
  return Buffer.byteLength(body);
}

async function load(
  url: string,
  headers: Record<string, string>,
  mustContain: string,
  duration: number,
) {
  const result = await autocannon({
    url,
    headers,
    connections: CONNECTIONS,
    duration,
    timeout: 10,
    verifyBody: (body) => String(body).includes(mustContain),
  });
  const problems = [
    result.non2xx > 0 &&
      `${result.non2xx} non-2xx responses (3xx ${result["3xx"]}, 4xx ${result["4xx"]}, 5xx ${result["5xx"]})`,
    result.errors > 0 && `${result.errors} connection errors`,
    result.timeouts > 0 && `${result.timeouts} timeouts`,
    result.mismatches > 0 && `${result.mismatches} bodies without "${mustContain}"`,
    result["2xx"] === 0 && "no 2xx response at all",
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${url}: ${problems.join(", ")}`);
  return result;
}

/**
 * The baseline page padded to the dashboard's size: asked for N bytes it comes
 * out near N (its fixed part is estimated), so the request is corrected by the
 * difference until the two sizes are within 1%.
 */
async function sameSizeBaseline(base: string, targetBytes: number) {
  let requested = targetBytes;
  for (let attempt = 0; attempt < 5; attempt++) {
    const minimal = {
      url: `${base}/bench/minimal?bytes=${requested}`,
      headers: {},
      marker: "Benchmark baseline",
    };
    const minimalBytes = await checkPage(minimal.url, minimal.headers, minimal.marker);
    if (Math.abs(minimalBytes - targetBytes) <= targetBytes * 0.01)
      return { minimal, minimalBytes };
    requested += targetBytes - minimalBytes;
  }
  throw new Error(`/bench/minimal could not be made ${targetBytes} bytes long`);
}

function pad(cells: string[], widths: number[]) {
  return cells
    .map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!)))
    .join("  ");
}

/**
 * The production build with the baseline page in its route tree, which only a
 * build made with BENCH=1 has (remix.config.js). It stays in build/ until the
 * next `remix build`.
 */
/** `remix build`, with the bench's own pages when `bench` is set (remix.config.js). */
function remixBuild({ bench }: { bench: boolean }) {
  execFileSync(path.join(repoRoot, "node_modules", ".bin", "remix"), ["build"], {
    cwd: repoRoot,
    env: { ...process.env, BENCH: bench ? "1" : "" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function main({ dataDir, killOnTimeout }: Run) {
  remixBuild({ bench: true });
  let server: Server | null = null;
  try {
    const databasePath = path.join(dataDir, "app.db");
    const { user, firstFolder } = seedDashboard(databasePath);
    const cookie = await signIn(databasePath, user.id);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServer(port, dataDir);
    killOnTimeout(server.child);
    await waitForHealth(base, server);

    const dashboard = {
      url: `${base}/folders/${firstFolder.id}`,
      headers: { cookie },
      marker: firstFolder.name,
    };
    const dashboardBytes = await checkPage(dashboard.url, dashboard.headers, dashboard.marker);
    const { minimal, minimalBytes } = await sameSizeBaseline(base, dashboardBytes);

    const cpus = os.cpus().length;
    const [loadAverage] = os.loadavg();
    console.log(
      `Node ${process.version}, ${cpus} CPUs, load average ${loadAverage!.toFixed(1)}; ${CONNECTIONS} connections, ${ROUNDS} turns of ${ROUND_S} s per page, taken in turn after ${WARMUP_S} s of warm-up each; no compression (autocannon sends no Accept-Encoding).`,
    );
    console.log(
      `Dashboard: ${FOLDER_COUNT} folders, ${ITEM_COUNT} items in "${firstFolder.name}". Page sizes: minimal ${(minimalBytes / 1024).toFixed(1)} KiB, dashboard ${(dashboardBytes / 1024).toFixed(1)} KiB.`,
    );

    await load(minimal.url, minimal.headers, minimal.marker, WARMUP_S);
    await load(dashboard.url, dashboard.headers, dashboard.marker, WARMUP_S);
    const results = await takeTurns(minimal, dashboard);
    const peak = peakRssMiB(server.child.pid);
    await stopServer(server);
    server = null;
    const dashboardMsPerRequest = 1000 / results.dashboard.rate;
    const floor = await busyServerFloor(dashboardMsPerRequest, dashboardBytes, killOnTimeout);

    const widths = [26, 8, 8, 8, 9, 12];
    console.log("");
    console.log(pad(["page", "req/s", "p50 ms", "p99 ms", "requests", "turns req/s"], widths));
    for (const [name, result] of [
      ["/bench/minimal (same size)", results.minimal],
      ["/folders/:id (signed in)", results.dashboard],
      [`bare Node, ${dashboardMsPerRequest.toFixed(1)} ms CPU`, floor],
    ] as const) {
      console.log(
        pad(
          [
            name,
            result.rate.toFixed(0),
            result.p50.toFixed(1),
            result.p99.toFixed(1),
            String(result.requests),
            `${result.slowest.toFixed(0)}–${result.fastest.toFixed(0)}`,
          ],
          widths,
        ),
      );
    }
    const ratio = results.dashboard.rate / results.minimal.rate;
    const p99 = results.dashboard.p99;
    console.log("");
    console.log(
      `dashboard/minimal throughput: ${ratio.toFixed(2)}  (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? "PASS" : "MISS"}`,
    );
    const overFloor = p99 / floor.p99;
    console.log(
      `dashboard p99 / bare-server floor at the same cost: ${overFloor.toFixed(2)} (${p99.toFixed(1)} ms against ${floor.p99.toFixed(1)} ms; target <= ${TARGET_P99_OVER_FLOOR}) ${overFloor <= TARGET_P99_OVER_FLOOR ? "PASS" : "MISS"}`,
    );
    console.log(
      `server peak RSS (VmHWM): ${peak === null ? "unavailable" : `${peak.toFixed(0)} MiB`}`,
    );
    console.log(
      `latency floor: a bare Node server spending the dashboard's ${dashboardMsPerRequest.toFixed(1)} ms per request has p99 ${floor.p99.toFixed(1)} ms under the same load`,
    );
    const drift = results.minimal.fastest / results.minimal.slowest - 1;
    if (drift > MAX_DRIFT) {
      console.log(
        `WARNING: the baseline's turns differ by ${(drift * 100).toFixed(0)}% (load average ${loadAverage!.toFixed(1)} on ${cpus} CPUs): something else is using the machine, so the figures are unreliable. Run again when it is quiet.`,
      );
    }
  } finally {
    if (server) await stopServer(server);
    // build/ goes back to what every other command expects: no bench pages.
    remixBuild({ bench: false });
  }
}

await runBenchmark("bench:dashboard", WATCHDOG_MS, main);
