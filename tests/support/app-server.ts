import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PRODUCTION_MEMORY_ENV } from "./production-heap";

/**
 * The production build started as in production (`node build/server/index.js`) on a data
 * directory of its own, for the benchmarks and for a browser test that must not share the test
 * server's database; and any child server waited for and stopped the same way.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const serverEntry = path.join(repoRoot, "build", "server", "index.js");
export const serverBuild = path.join(repoRoot, "build", "index.js");

export type Server = { child: ChildProcess; stderr: () => string; stdout: () => string };

export function requireBuild() {
  for (const file of [serverBuild, serverEntry]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first.`);
  }
}

/** A child process whose last 4,000 characters of stderr and stdout (the request log) are kept. */
export function watchServer(child: ChildProcess): Server {
  let stderr = "";
  let stdout = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.stdout?.on("data", (chunk) => {
    stdout = (stdout + chunk).slice(-4000);
  });
  return { child, stderr: () => stderr, stdout: () => stdout };
}

/** How a child's command is started: as it is, or inside something (tests/support/small-disk.ts). */
export type Launch = (command: string, args: string[]) => [command: string, args: string[]];

const asItIs: Launch = (command, args) => [command, args];

/**
 * The production build on 127.0.0.1:`port`, its database, uploads and outbox
 * under `dataDir`, the scheduler off and no SMTP; `env` adds to or overrides
 * that (SESSION_SECRET at least), `nodeArgs` go to Node itself, `launch` wraps the command.
 */
export function startServer(
  port: number,
  dataDir: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  launch: Launch = asItIs,
) {
  const child = spawn(...launch(process.execPath, [...nodeArgs, serverEntry, serverBuild]), {
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
      SMTP_URL: "",
      // The heap cap and allocator of the deployed machine (fly.toml), so memory behaves as in production.
      ...PRODUCTION_MEMORY_ENV,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return watchServer(child);
}

/** Until `${base}/healthz` answers 2xx; an exit or 30 s without an answer is an error with the server's stderr. */
export async function waitForHealth(base: string, server: Server) {
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

export async function stopServer(server: Server) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const forced = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(forced);
}
