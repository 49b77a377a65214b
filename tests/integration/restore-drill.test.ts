import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { backupDatabase } from "#db/backup";
import { openDatabase } from "#db/connection";
import { createFolder, createUser } from "#db/factories";
import { unsubscribeToken } from "~/modules/recipients/recipient-links.server";
import { repoRoot } from "../support/app-server";
import {
  type BuiltServer,
  launchBuiltServer,
  startBuiltServer,
  tempDir,
  waitUntil,
} from "../support/integration";

/**
 * The restore drill of docs/deploy.md, on every `npm test`: back up a database,
 * restore the backup into an empty place, start the production server on it
 * and check that it is healthy and has the data. Needs `npm run build` first.
 */
// As the image runs it: built by `npm run build` (scripts/build-server.ts).
const restoreScript = path.join(repoRoot, "build", "scripts", "db-restore.js");
const TEST_TIMEOUT = 60_000;

const output = (server: BuiltServer) =>
  `--- stdout ---\n${server.stdout()}\n--- stderr ---\n${server.stderr()}`;

/** What the server and the restore script read to find the data under `dataDir`. */
const dataEnv = (dataDir: string) => ({
  DATABASE_PATH: path.join(dataDir, "app.db"),
  STORAGE_DIR: path.join(dataDir, "uploads"),
  OUTBOX_DIR: path.join(dataDir, "outbox"),
});

describe("restore drill (docs/deploy.md)", () => {
  test(
    "a backup restored as app.db starts the production server with the data in it",
    async () => {
      const email = `restore-drill-${Date.now()}@example.com`;

      // The live database, backed up the way the nightly job does it.
      const liveDir = tempDir("thoughtfully-live-");
      const livePath = path.join(liveDir, "app.db");
      const live = openDatabase(livePath);
      createUser(live, { email });
      const backup = await backupDatabase(livePath);
      live.$client.close();

      // The drill: copy the backup to DATABASE_PATH (nothing else beside it) and start.
      const restoreDir = tempDir("thoughtfully-restore-");
      const restoredPath = path.join(restoreDir, "app.db");
      fs.copyFileSync(backup, restoredPath);
      expect(fs.existsSync(`${restoredPath}-wal`)).toBe(false);

      const server = await startBuiltServer({}, { dataDir: restoreDir });

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

      const home = await fetch(`${server.base}/`, { signal: AbortSignal.timeout(10_000) });
      expect(home.status, output(server)).toBe(200);
      await home.arrayBuffer();

      // Graceful shutdown: SIGTERM finishes requests, closes the database and exits (not
      // killed 10 s later by `stop`).
      await server.stop();
      expect(await server.exited, output(server)).toEqual({ code: 0, signal: null });
    },
    TEST_TIMEOUT,
  );

  test(
    "an opt-out made after the backup still holds after the restore, which holds the scheduler",
    async () => {
      const liveDir = tempDir("thoughtfully-optout-");
      const livePath = path.join(liveDir, "app.db");
      const live = openDatabase(livePath);
      const folder = createFolder(live, createUser(live).id, {
        recipients: [
          { name: "Mum", email: "mum@example.com" },
          { name: "Dad", email: "dad@example.com" },
        ],
      });
      const backup = await backupDatabase(livePath);
      live.$client.close();

      // After the backup, on the live server: Mum leaves this folder with
      // one click (RFC 8058), Dad leaves everything through the form.
      const liveServer = await startBuiltServer({}, { dataDir: liveDir });
      const baseUrl = liveServer.base;
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
      expect(oneClick.status, output(liveServer)).toBe(200);
      const form = await fetch(`${baseUrl}/unsubscribe?${link("dad@example.com")}`, {
        method: "POST",
        body: new URLSearchParams({ scope: "everything", reason: "too_frequent" }),
        headers: { Origin: baseUrl },
      });
      expect(form.status, `${await form.clone().text()}\n${output(liveServer)}`).toBe(200);
      await form.arrayBuffer();
      await liveServer.stop();

      // The drill, as docs/deploy.md gives it, with the server stopped.
      const restore = spawnSync(process.execPath, [restoreScript, backup], {
        cwd: repoRoot,
        env: { ...process.env, ...dataEnv(liveDir) },
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
      const held = await startBuiltServer({ SCHEDULER: "on" }, { dataDir: liveDir });
      await waitUntil(() => output(held).includes("[jobs] paused"), 5_000, "The jobs' pause");
      expect(output(held)).toContain("[jobs] paused: held after a restore");
      const check = new Database(livePath, { readonly: true, fileMustExist: true });
      try {
        const snapshots = check.prepare("SELECT count(*) FROM analytics_snapshots").pluck().get();
        expect(snapshots, output(held)).toBe(0);
      } finally {
        check.close();
      }
    },
    TEST_TIMEOUT,
  );

  test(
    "an invalid PORT stops the server at start with one line naming PORT",
    async () => {
      const server = await launchBuiltServer({ PORT: "abc" });

      const { code } = await server.exited;

      expect(code, output(server)).not.toBe(0);
      expect(code, output(server)).not.toBeNull();
      const portLines = server
        .stderr()
        .split("\n")
        .filter((line) => line.includes("PORT"));
      expect(portLines, output(server)).toHaveLength(1);
    },
    TEST_TIMEOUT,
  );
});
