import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, onTestFinished, TestRunner } from "vitest";
import {
  type Launch,
  requireBuild,
  type Server,
  startServer,
  stopServer,
  waitForHealth,
} from "./app-server";
import { freePort } from "./free-port";
import { MisbehavingRelay } from "./misbehaving-relay";
import { SmtpSink } from "./smtp-sink";

/**
 * The one set-up of tests/integration (how to write such a test: docs/testing.md). Each
 * Vitest file already has its own data directory and SQLite file
 * (tests/setup/isolated-environment.ts); these add the real parts a file asks for, each
 * stopped or removed when the test that asked ends, or the file when asked outside a test.
 * Call them at the top of the file (top-level await) or inside a test, not in a hook.
 * docs/decisions/0118-one-integration-set-up-and-no-waiting.md
 */
function whenDone(cleanup: () => unknown) {
  const run = async () => {
    await cleanup();
  };
  if (TestRunner.getCurrentTest()) onTestFinished(run);
  else afterAll(run);
}

export const MAIL_FROM = "Thoughtfully <hello@thoughtfully.test>";

/**
 * A real SMTP server on loopback, its address in SMTP_URL (and a sender in MAIL_FROM): the
 * app's modules read both when first imported, so import them after this, with `await import`.
 */
export async function startSmtpSink() {
  const sink = new SmtpSink();
  process.env.SMTP_URL = await sink.start();
  process.env.MAIL_FROM = MAIL_FROM;
  whenDone(() => sink.stop());
  return sink;
}

/**
 * A relay that misbehaves as a test scripts it (tests/support/misbehaving-relay.ts), in
 * SMTP_URL (with credentials when given: the client then logs in with them) and a sender in
 * MAIL_FROM; import the app's modules after this, as after `startSmtpSink`.
 */
export async function startMisbehavingRelay(credentials?: { user: string; password: string }) {
  const relay = new MisbehavingRelay();
  const url = new URL(await relay.start());
  if (credentials) {
    url.username = encodeURIComponent(credentials.user);
    url.password = encodeURIComponent(credentials.password);
  }
  process.env.SMTP_URL = url.toString();
  process.env.MAIL_FROM = MAIL_FROM;
  whenDone(() => relay.stop());
  return relay;
}

/** A new empty directory under the system's temporary one. */
export function tempDir(prefix = "thoughtfully-") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  whenDone(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** This file's own data directory, whose app.db the app's modules in this process use. */
export function thisFilesDataDir() {
  return path.dirname(process.env.DATABASE_PATH!);
}

export type BuiltServer = Server & {
  base: string;
  dataDir: string;
  /** Settles when the process exits, with its code or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop: () => Promise<void>;
};

/**
 * The production build (`node build/server/index.js`, as in production) on a free port, its
 * database, uploads and outbox under `dataDir` (a new directory unless given), with this
 * process's SESSION_SECRET, the scheduler off and no SMTP unless `env` says otherwise, started
 * as `launch` says (on a small disk: tests/support/small-disk.ts); not waited for (a server
 * meant to fail at start, or to be killed on the way).
 */
export async function launchBuiltServer(
  env: Record<string, string> = {},
  {
    dataDir = tempDir(),
    nodeArgs = [],
    launch,
  }: { dataDir?: string; nodeArgs?: string[]; launch?: Launch } = {},
): Promise<BuiltServer> {
  requireBuild();
  const port = await freePort();
  const server = startServer(
    port,
    dataDir,
    { SESSION_SECRET: process.env.SESSION_SECRET!, ...env },
    nodeArgs,
    launch,
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    server.child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  whenDone(() => stopServer(server));
  return {
    ...server,
    base: `http://127.0.0.1:${port}`,
    dataDir,
    exited,
    stop: () => stopServer(server),
  };
}

/** As `launchBuiltServer`, once `/healthz` answers. */
export async function startBuiltServer(
  env: Record<string, string> = {},
  options: { dataDir?: string; nodeArgs?: string[]; launch?: Launch } = {},
) {
  const server = await launchBuiltServer(env, options);
  await waitForHealth(server.base, server);
  return server;
}

/** Until `condition` holds, checked every 20 ms; an error after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
