import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, test } from "vitest";
import { backupDatabase } from "#db/backup";
import { openDatabase } from "#db/connection";
import { createFolder, createUser } from "#db/factories";
import { users } from "#db/schema";
import { unsubscribeToken } from "~/modules/recipients/recipient-links.server";

/**
 * The restore drill of docs/deploy.md, on every `npm test`: back up a database,
 * restore the backup into an empty place, start the production server on it
 * and check that it is healthy and has the data. Needs `npm run build` first.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const serverBuild = path.join(repoRoot, "build", "index.js");
const remixServe = path.join(repoRoot, "node_modules", "@remix-run", "serve", "dist", "cli.js");
// As the image runs it: built by `npm run build` (scripts/build-server.ts).
const restoreScript = path.join(repoRoot, "build", "scripts", "db-restore.js");
const TEST_TIMEOUT = 60_000;

const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(prefix: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function requireServerBuild() {
  if (!fs.existsSync(serverBuild)) {
    throw new Error(
      `The restore drill needs the production server build, but ${serverBuild} does not exist. Run \`npm run build\` before this test.`,
    );
  }
}

function freePort() {
  return new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

type Server = {
  child: ChildProcess;
  output: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

function startServer(env: Record<string, string>): Server {
  const child = spawn(process.execPath, [remixServe, "build/index.js"], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return {
    child,
    exited,
    stderr: () => stderr,
    output: () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`,
  };
}

function within<T>(promise: Promise<T>, ms: number, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function waitForHealthy(server: Server, baseUrl: string, ms: number) {
  const deadline = Date.now() + ms;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`The server exited before it became healthy.\n${server.output()}`);
    }
    try {
      const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`GET /healthz was not 200 within ${ms} ms (last: ${last}).\n${server.output()}`);
}

describe("restore drill (docs/deploy.md)", () => {
  test(
    "a backup restored as app.db starts the production server with the data in it",
    async () => {
      requireServerBuild();
      const email = `restore-drill-${Date.now()}@example.com`;

      // The live database, backed up the way the nightly job does it.
      const liveDir = tempDir("thoughtfully-live-");
      const livePath = path.join(liveDir, "app.db");
      const live = openDatabase(livePath);
      live.insert(users).values({ email, firstName: "Restored" }).run();
      const backup = backupDatabase(live.$client, livePath);
      live.$client.close();

      // The drill: copy the backup to DATABASE_PATH (nothing else beside it) and start.
      const restoreDir = tempDir("thoughtfully-restore-");
      const restoredPath = path.join(restoreDir, "app.db");
      fs.copyFileSync(backup, restoredPath);
      expect(fs.existsSync(`${restoredPath}-wal`)).toBe(false);

      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const server = startServer({
        PORT: String(port),
        DATABASE_PATH: restoredPath,
        STORAGE_DIR: path.join(restoreDir, "uploads"),
        OUTBOX_DIR: path.join(restoreDir, "outbox"),
        SCHEDULER: "off",
        NODE_ENV: "production",
      });

      await waitForHealthy(server, baseUrl, 20_000);

      const restored = new Database(restoredPath, { readonly: true, fileMustExist: true });
      try {
        const found = restored
          .prepare("SELECT email FROM users WHERE email = ?")
          .pluck()
          .get(email);
        expect(found).toBe(email);
      } finally {
        restored.close();
      }

      const home = await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(10_000) });
      expect(home.status, server.output()).toBe(200);
      await home.arrayBuffer();

      // Graceful shutdown: SIGTERM finishes requests, closes the database and exits.
      server.child.kill("SIGTERM");
      const { code, signal } = await within(server.exited, 10_000, "Exit after SIGTERM");
      expect({ code, signal }, server.output()).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT,
  );

  test(
    "an opt-out made after the backup still holds after the restore, which holds the scheduler",
    async () => {
      requireServerBuild();
      const liveDir = tempDir("thoughtfully-optout-");
      const livePath = path.join(liveDir, "app.db");
      const live = openDatabase(livePath);
      const sender = createUser(live, { email: "sender@example.com", firstName: "Sam" });
      const folder = createFolder(live, sender.id, {
        name: "Family",
        recipients: [
          { name: "Mum", email: "mum@example.com" },
          { name: "Dad", email: "dad@example.com" },
        ],
      });
      const backup = backupDatabase(live.$client, livePath);
      live.$client.close();

      // After the backup, on the live server: Mum leaves this folder with
      // one click (RFC 8058), Dad leaves everything through the form.
      const serverEnv: Record<string, string> = {
        DATABASE_PATH: livePath,
        STORAGE_DIR: path.join(liveDir, "uploads"),
        OUTBOX_DIR: path.join(liveDir, "outbox"),
        NODE_ENV: "production",
        SESSION_SECRET: process.env.SESSION_SECRET!,
      };
      let port = await freePort();
      let baseUrl = `http://127.0.0.1:${port}`;
      let server = startServer({
        ...serverEnv,
        PORT: String(port),
        APP_URL: baseUrl,
        SCHEDULER: "off",
      });
      await waitForHealthy(server, baseUrl, 20_000);
      const link = (email: string) =>
        new URLSearchParams({
          folder: String(folder.id),
          email,
          token: unsubscribeToken(folder.id, email),
        });
      const oneClick = await fetch(`${baseUrl}/unsubscribe?${link("mum@example.com")}`, {
        method: "POST",
        body: new URLSearchParams({ "List-Unsubscribe": "One-Click" }),
      });
      expect(oneClick.status, server.output()).toBe(200);
      const form = await fetch(`${baseUrl}/unsubscribe?${link("dad@example.com")}`, {
        method: "POST",
        body: new URLSearchParams({ scope: "everything", reason: "too_frequent" }),
        headers: { Origin: baseUrl },
      });
      expect(form.status, `${await form.clone().text()}\n${server.output()}`).toBe(200);
      await form.arrayBuffer();
      server.child.kill("SIGTERM");
      await within(server.exited, 10_000, "Exit after SIGTERM");

      // The drill, as docs/deploy.md gives it, with the server stopped.
      const restore = spawnSync(process.execPath, [restoreScript, backup], {
        cwd: repoRoot,
        env: { ...process.env, ...serverEnv },
        encoding: "utf8",
      });
      expect(restore.status, `${restore.stdout}\n${restore.stderr}`).toBe(0);

      const restored = new Database(livePath, { readonly: true, fileMustExist: true });
      try {
        const states = restored
          .prepare(
            "SELECT email, status FROM folder_recipient_states WHERE folder_id = ? ORDER BY email",
          )
          .all(folder.id);
        expect(states).toEqual([
          { email: "dad@example.com", status: "unsubscribed" },
          { email: "mum@example.com", status: "unsubscribed" },
        ]);
        const everywhere = restored.prepare("SELECT email FROM email_unsubscribes").pluck().all();
        expect(everywhere).toEqual(["dad@example.com"]);
        const folderOut = restored
          .prepare("SELECT is_unsubscribed FROM folders WHERE id = ?")
          .pluck()
          .get(folder.id);
        expect(folderOut).toBe(1);
      } finally {
        restored.close();
      }

      // Restarted with SCHEDULER=on, the server runs no job while the hold is there.
      port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      server = startServer({ ...serverEnv, PORT: String(port), APP_URL: baseUrl, SCHEDULER: "on" });
      await waitForHealthy(server, baseUrl, 20_000);
      const deadline = Date.now() + 5_000;
      while (!server.output().includes("[jobs] paused") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(server.output()).toContain("[jobs] paused: held after a restore");
      const check = new Database(livePath, { readonly: true, fileMustExist: true });
      try {
        const snapshots = check.prepare("SELECT count(*) FROM analytics_snapshots").pluck().get();
        expect(snapshots, server.output()).toBe(0);
      } finally {
        check.close();
      }
      server.child.kill("SIGTERM");
      await within(server.exited, 10_000, "Exit after SIGTERM");
    },
    TEST_TIMEOUT,
  );

  test(
    "an invalid PORT stops the server at start with one line naming PORT",
    async () => {
      requireServerBuild();
      const dataDir = tempDir("thoughtfully-badport-");
      const server = startServer({
        PORT: "abc",
        DATABASE_PATH: path.join(dataDir, "app.db"),
        STORAGE_DIR: path.join(dataDir, "uploads"),
        OUTBOX_DIR: path.join(dataDir, "outbox"),
        SCHEDULER: "off",
        NODE_ENV: "production",
      });

      const { code } = await within(server.exited, 15_000, "Exit with PORT=abc");

      expect(code, server.output()).not.toBe(0);
      expect(code, server.output()).not.toBeNull();
      const portLines = server
        .stderr()
        .split("\n")
        .filter((line) => line.includes("PORT"));
      expect(portLines, server.output()).toHaveLength(1);
    },
    TEST_TIMEOUT,
  );
});
