import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createCookie } from "@remix-run/node";
import { openDatabase } from "#db/connection";
import { sessions } from "#db/schema";
import { startServer as startAppServer } from "#tests/support/app-server";

export {
  repoRoot,
  requireBuild,
  type Server,
  serverBuild,
  stopServer,
  waitForHealth,
  watchServer,
} from "#tests/support/app-server";
/**
 * What the HTTP benchmarks share beyond tests/support/app-server.ts: the
 * session secret of the run, a signed-in session cookie, the server started
 * with that secret (and a CPU profile when asked), and its memory from /proc.
 */
export { freePort } from "#tests/support/free-port";

/** One secret per benchmark run: the server signs cookies with it, `signIn` too. */
export const SESSION_SECRET = crypto.randomBytes(32).toString("hex");

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
        signInMethod: "password",
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

/**
 * The production build on 127.0.0.1:`port` with this run's secret, data under
 * `dataDir`. `BENCH_CPU_PROFILE=<dir>` in the environment writes the server's
 * V8 CPU profile there when it stops (open it in Chrome DevTools' Performance
 * panel). `nodeArgs` go to Node itself.
 */
export function startServer(
  port: number,
  dataDir: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
) {
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const profileArgs = profileDir
    ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profileDir)}`]
    : [];
  return startAppServer(port, dataDir, { SESSION_SECRET, ...env }, [...profileArgs, ...nodeArgs]);
}

/** A /proc/<pid>/status field in bytes (Linux only). */
export function procStatusBytes(pid: number, field: "VmRSS" | "VmHWM") {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`/proc/${pid}/status has no ${field}`);
  return kib * 1024;
}
