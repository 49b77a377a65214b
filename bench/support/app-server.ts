import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCookie } from "@remix-run/node";
import { openDatabase } from "../../db/connection";
import { sessions } from "../../db/schema";

/**
 * What the HTTP benchmarks share: a free loopback port, the production build
 * started with `remix-serve` on a throwaway data directory, a signed-in
 * session cookie, and the server's memory read from /proc.
 */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const remixServe = path.join(repoRoot, "node_modules", "@remix-run", "serve", "dist", "cli.js");
export const serverBuild = path.join(repoRoot, "build", "index.js");

/** One secret per benchmark run: the server signs cookies with it, `signIn` too. */
export const SESSION_SECRET = crypto.randomBytes(32).toString("hex");

export function requireBuild() {
  if (!fs.existsSync(serverBuild)) {
    throw new Error(`${serverBuild} is missing: run \`npx remix build\` first.`);
  }
}

export { freePort } from "../../tests/support/free-port";

/**
 * A session row and its signed cookie, exactly what a successful login
 * produces (as tests/e2e/support/accounts.ts does for the browser tests).
 */
export async function signIn(databasePath: string, userId: number) {
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

export type Server = { child: ChildProcess; stderr: () => string };

/**
 * The production build on 127.0.0.1:`port`, its database, uploads and outbox
 * under `dataDir`, the scheduler off. `BENCH_CPU_PROFILE=<dir>` in the
 * environment writes the server's V8 CPU profile there when it stops (open it
 * in Chrome DevTools' Performance panel).
 */
export function startServer(port: number, dataDir: string, env: Record<string, string> = {}) {
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const profileArgs = profileDir
    ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profileDir)}`]
    : [];
  const child = spawn(process.execPath, [...profileArgs, remixServe, serverBuild], {
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
      // The heap cap of the deployed machine (fly.toml), so peak memory is what production sees.
      NODE_OPTIONS: "--max-old-space-size=256",
      ...env,
    },
    // remix-serve logs every request to stdout; nobody reads it here.
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  return { child, stderr: () => stderr } satisfies Server;
}

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

/** A /proc/<pid>/status field in bytes (Linux only). */
export function procStatusBytes(pid: number, field: "VmRSS" | "VmHWM") {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`/proc/${pid}/status has no ${field}`);
  return kib * 1024;
}
