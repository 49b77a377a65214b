import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCookie } from "@remix-run/node";
import autocannon from "autocannon";
import { openDatabase } from "../db/connection";
import { contentItems, folders, sessions, users } from "../db/schema";

/**
 * `npm run bench:dashboard`: the signed-in dashboard (`/folders/<id>`, 5
 * folders, 50 items) against a baseline page of the same size with no
 * database or session work (`/bench/minimal`), both served by the production
 * build in one run, on loopback. Prints throughput and latency of both, the
 * ratio and the targets; the baseline runs again briefly at the end, and a
 * warning says when the two disagree (a busy machine). Needs `remix build`
 * first (the npm script does it).
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const remixServe = path.join(repoRoot, "node_modules", "@remix-run", "serve", "dist", "cli.js");
const serverBuild = path.join(repoRoot, "build", "index.js");

const CONNECTIONS = 10;
const DURATION_S = 10;
const WARMUP_S = 2;
/** The baseline runs again briefly at the end: a big change means the machine got busier or quieter. */
const RECHECK_S = 5;
const MAX_DRIFT = 0.15;
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 75;
/** Everything, start to finish, must fit in this; otherwise the run is killed. */
const WATCHDOG_MS = 120_000;
const SESSION_SECRET = crypto.randomBytes(32).toString("hex");

const FOLDER_NAMES = ["Family news", "Book club", "Old friends", "Running crew", "Work-ish"];
const FOLDER_COUNT = FOLDER_NAMES.length;
const ITEM_COUNT = 50;

function freePort() {
  return new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** One verified sender, 5 folders, 50 unsent items in the first; returns what the requests need. */
function seed(databasePath: string) {
  const db = openDatabase(databasePath);
  try {
    return db.transaction((tx) => {
      const user = tx
        .insert(users)
        .values({
          email: "bench@example.com",
          firstName: "Bench",
          lastName: "Mark",
          emailVerified: true,
          timeZone: "Europe/London",
        })
        .returning()
        .get();
      const folderRows = FOLDER_NAMES.map((name, index) =>
        tx
          .insert(folders)
          .values({
            userId: user.id,
            name,
            recipients: [
              { name: "Mum", email: `mum${index}@example.com` },
              { name: "Sam", email: `sam${index}@example.com` },
            ],
            frequency: "weekly",
            dayOfWeek: index + 1,
            nextSendAt: new Date(Date.now() + (index + 2) * 24 * 60 * 60 * 1000),
            sortOrder: index,
          })
          .returning()
          .get(),
      );
      const first = folderRows[0]!;
      tx.insert(contentItems)
        .values(
          Array.from({ length: ITEM_COUNT }, (_, index) =>
            index % 3 === 2
              ? {
                  folderId: first.id,
                  type: "musing" as const,
                  title: `Musing ${index + 1}`,
                  note: "The tomatoes are finally turning red. Come and pick some next time you visit.",
                  sortOrder: index,
                }
              : {
                  folderId: first.id,
                  type: "link" as const,
                  title: `An article worth reading, number ${index + 1}`,
                  urls: [
                    `https://example.com/articles/${index + 1}`,
                    `https://example.org/reviews/${index + 1}`,
                  ],
                  addComment: true,
                  commentText: "Made me think of you. The second link is the follow-up piece.",
                  sortOrder: index,
                },
          ),
        )
        .run();
      return { user, firstFolder: first };
    });
  } finally {
    db.$client.close();
  }
}

/**
 * A session row and its signed cookie, exactly what a successful login
 * produces (as tests/e2e/support/accounts.ts does for the browser tests).
 */
async function signIn(databasePath: string, userId: number) {
  const token = crypto.randomBytes(32).toString("base64url");
  const db = openDatabase(databasePath, { migrate: false });
  try {
    db.insert(sessions)
      .values({
        sid: crypto.createHash("sha256").update(token).digest("hex"),
        userId,
        expire: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000),
      })
      .run();
  } finally {
    db.$client.close();
  }
  const cookie = createCookie("thoughtfully_session", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secrets: [SESSION_SECRET],
  });
  return (await cookie.serialize(token)).split(";")[0]!;
}

type Server = { child: ChildProcess; stderr: () => string };

function startServer(port: number, dataDir: string): Server {
  const child = spawn(process.execPath, [remixServe, serverBuild], {
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(port),
      APP_URL: `http://127.0.0.1:${port}`,
      DATABASE_PATH: path.join(dataDir, "app.db"),
      STORAGE_DIR: path.join(dataDir, "uploads"),
      OUTBOX_DIR: path.join(dataDir, "outbox"),
      SCHEDULER: "off",
      SESSION_SECRET,
      SMTP_URL: "",
      BENCH_ROUTES: "on",
    },
    // remix-serve logs every request to stdout; nobody reads it here.
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  return { child, stderr: () => stderr };
}

async function waitForHealth(base: string, server: Server) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) {
      throw new Error(`The server exited with ${server.child.exitCode}:\n${server.stderr()}`);
    }
    try {
      const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The server did not answer ${base}/healthz within 30 s:\n${server.stderr()}`);
}

async function stopServer(server: Server) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const forced = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(forced);
}

/** Peak resident memory of a process in MiB (Linux only; null elsewhere). */
function peakRssMiB(pid: number | undefined) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : null;
  } catch {
    return null;
  }
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

function pad(cells: string[], widths: number[]) {
  return cells
    .map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!)))
    .join("  ");
}

async function main() {
  if (!fs.existsSync(serverBuild)) {
    throw new Error(`${serverBuild} is missing: run \`npx remix build\` first.`);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-bench-"));
  let server: Server | null = null;
  const watchdog = setTimeout(() => {
    console.error(`Benchmark took longer than ${WATCHDOG_MS / 1000} s; stopping.`);
    server?.child.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(2);
  }, WATCHDOG_MS);
  try {
    const databasePath = path.join(dataDir, "app.db");
    const { user, firstFolder } = seed(databasePath);
    const cookie = await signIn(databasePath, user.id);

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startServer(port, dataDir);
    await waitForHealth(base, server);

    const minimal = { url: `${base}/bench/minimal`, headers: {}, marker: "Benchmark baseline" };
    const dashboard = {
      url: `${base}/folders/${firstFolder.id}`,
      headers: { cookie },
      marker: firstFolder.name,
    };
    const minimalBytes = await checkPage(minimal.url, minimal.headers, minimal.marker);
    const dashboardBytes = await checkPage(dashboard.url, dashboard.headers, dashboard.marker);

    const cpus = os.cpus().length;
    const [loadAverage] = os.loadavg();
    console.log(
      `Node ${process.version}, ${cpus} CPUs, load average ${loadAverage!.toFixed(1)}; ${CONNECTIONS} connections, ${DURATION_S} s per page after ${WARMUP_S} s of warm-up each; no compression (autocannon sends no Accept-Encoding).`,
    );
    console.log(
      `Dashboard: ${FOLDER_COUNT} folders, ${ITEM_COUNT} items in "${firstFolder.name}". Page sizes: minimal ${(minimalBytes / 1024).toFixed(1)} KiB, dashboard ${(dashboardBytes / 1024).toFixed(1)} KiB.`,
    );

    await load(minimal.url, minimal.headers, minimal.marker, WARMUP_S);
    await load(dashboard.url, dashboard.headers, dashboard.marker, WARMUP_S);
    const minimalResult = await load(minimal.url, minimal.headers, minimal.marker, DURATION_S);
    const dashboardResult = await load(
      dashboard.url,
      dashboard.headers,
      dashboard.marker,
      DURATION_S,
    );
    const recheck = await load(minimal.url, minimal.headers, minimal.marker, RECHECK_S);
    const peak = peakRssMiB(server.child.pid);

    const widths = [26, 8, 8, 8, 9];
    console.log("");
    console.log(pad(["page", "req/s", "p50 ms", "p99 ms", "requests"], widths));
    for (const [name, result] of [
      ["/bench/minimal", minimalResult],
      ["/folders/:id (signed in)", dashboardResult],
    ] as const) {
      console.log(
        pad(
          [
            name,
            result.requests.average.toFixed(0),
            result.latency.p50.toFixed(1),
            result.latency.p99.toFixed(1),
            String(result.requests.total),
          ],
          widths,
        ),
      );
    }
    const drift = recheck.requests.average / minimalResult.requests.average - 1;
    console.log(
      pad(
        [
          "/bench/minimal (re-check)",
          recheck.requests.average.toFixed(0),
          recheck.latency.p50.toFixed(1),
          recheck.latency.p99.toFixed(1),
          String(recheck.requests.total),
        ],
        widths,
      ),
    );
    const ratio = dashboardResult.requests.average / minimalResult.requests.average;
    const p99 = dashboardResult.latency.p99;
    console.log("");
    console.log(
      `dashboard/minimal throughput: ${ratio.toFixed(2)}  (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? "PASS" : "MISS"}`,
    );
    console.log(
      `dashboard p99 latency: ${p99.toFixed(1)} ms  (target < ${TARGET_P99_MS} ms) ${p99 < TARGET_P99_MS ? "PASS" : "MISS"}`,
    );
    console.log(
      `server peak RSS (VmHWM): ${peak === null ? "unavailable" : `${peak.toFixed(0)} MiB`}`,
    );
    if (Math.abs(drift) > MAX_DRIFT) {
      console.log(
        `WARNING: the baseline moved ${(drift * 100).toFixed(0)}% between its two runs (load average ${loadAverage!.toFixed(1)} on ${cpus} CPUs): something else is using the machine, so the figures are unreliable. Run again when it is quiet.`,
      );
    }
  } finally {
    if (server) await stopServer(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
}

try {
  await main();
} catch (error) {
  console.error(`bench:dashboard failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
}
