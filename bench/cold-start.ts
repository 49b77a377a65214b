import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot, requireBuild, serverBuild, serverEntry } from "#tests/support/app-server";
import { freePort } from "#tests/support/free-port";
import { runBenchmark } from "./support/run";

/**
 * `npm run bench:cold-start`: how long the production server takes from
 * `spawn` to its first 200 from `/healthz`, on a database that is already
 * migrated (as after a deploy's first start), against a bare Node HTTP server
 * started the same way in the same run. The two take turns, ROUNDS times, so
 * a busy moment weighs on both; the medians are compared. Target (issue 48):
 * at most 4x the bare server. A third server, taking its turn too, imports
 * every package the production server imports at start and does nothing
 * else: the floor of loading them (docs/performance.md, "bench:cold-start").
 * Needs `npm run build` first (the npm script does it).
 */
const ROUNDS = 7;
const TARGET_RATIO = 4;
const WATCHDOG_MS = 300_000;
const bareServer = path.join(repoRoot, "bench", "support", "bare-server.mjs");
const importsOnlyServer = path.join(repoRoot, "bench", "support", "imports-only-server.mjs");

async function timeToFirst200(args: string[], env: Record<string, string>) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: "ignore",
  });
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        await response.arrayBuffer();
        if (response.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

await runBenchmark("bench:cold-start", WATCHDOG_MS, async ({ dataDir }) => {
  requireBuild();
  const appEnv = {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    DATABASE_PATH: path.join(dataDir, "app.db"),
    STORAGE_DIR: path.join(dataDir, "uploads"),
    OUTBOX_DIR: path.join(dataDir, "outbox"),
    SESSION_SECRET: "bench-cold-start-secret-with-more-than-32-characters",
    SCHEDULER: "on",
    SMTP_URL: "",
  };
  // The first start creates and migrates the database; the rounds measure starts after it.
  await timeToFirst200([serverEntry, serverBuild], appEnv);
  const app: number[] = [];
  const floor: number[] = [];
  const packages: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    floor.push(await timeToFirst200([bareServer], {}));
    packages.push(await timeToFirst200([importsOnlyServer, path.dirname(serverBuild)], {}));
    app.push(await timeToFirst200([serverEntry, serverBuild], appEnv));
  }
  const appMs = median(app);
  const floorMs = median(floor);
  const packagesMs = median(packages);
  const ratio = appMs / floorMs;
  console.log(`Node ${process.version}`);
  console.log(
    `bare Node HTTP server: median ${floorMs.toFixed(0)} ms (${floor.map((ms) => ms.toFixed(0)).join(", ")})`,
  );
  console.log(
    `its packages only:     median ${packagesMs.toFixed(0)} ms (${packages.map((ms) => ms.toFixed(0)).join(", ")}), ${(packagesMs / floorMs).toFixed(2)}x of the floor`,
  );
  console.log(
    `production server:     median ${appMs.toFixed(0)} ms (${app.map((ms) => ms.toFixed(0)).join(", ")})`,
  );
  console.log(
    `ratio ${ratio.toFixed(2)}x of the floor; target ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "PASS" : "MISS"}`,
  );
});
