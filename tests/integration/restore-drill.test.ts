import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { backupDatabase } from "#db/backup";
import { openDatabase } from "#db/connection";
import { createFolder, createItem, createUser } from "#db/factories";
import { unsubscribeToken } from "~/modules/recipients/recipient-links.server";
import { repoRoot } from "../support/app-server";
import {
  type BuiltServer,
  launchBuiltServer,
  startBuiltServer,
  startSmtpSink,
  tempDir,
  waitUntil,
} from "../support/integration";

/**
 * The restore drill of docs/deploy.md, on every `npm test`: back up a database,
 * restore the backup into an empty place, start the production server on it
 * and check that it is healthy and has the data. Needs `npm run build` first.
 */
// As the image runs it: built by `npm run build` (scripts/build-server.ts).
const builtScript = (name: string) => path.join(repoRoot, "build", "scripts", `${name}.js`);
const restoreScript = builtScript("db-restore");
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

/**
 * The drill with a send between the backup and the restore, every step an
 * operator command as built (`npm run db:backup`, `send:due`, `db:restore`):
 * the restored database knows what went out since its backup, from the send
 * journal in BACKUP_DIR (docs/decisions/0244-a-restore-knows-what-was-sent.md).
 */
describe("restore drill with a send after the backup", () => {
  /**
   * One operator command as built, on the data under `dataDir`, in its own process (not
   * spawnSync: the SMTP sink answers from this one).
   */
  function runCommand(
    dataDir: string,
    name: string,
    args: string[],
    extra: Record<string, string>,
  ) {
    return new Promise<{
      code: number | null;
      signal: string | null;
      stdout: string;
      output: string;
    }>((resolve) => {
      const child = spawn(process.execPath, [builtScript(name), ...args], {
        cwd: repoRoot,
        env: { ...process.env, ...dataEnv(dataDir), ...extra },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("exit", (code, signal) =>
        resolve({ code, signal, stdout, output: `${name}\n${stdout}\n${stderr}` }),
      );
    });
  }

  /** As `runCommand`, which must succeed; what it printed. */
  async function operatorCommand(
    dataDir: string,
    name: string,
    args: string[] = [],
    extra: Record<string, string> = {},
  ) {
    const run = await runCommand(dataDir, name, args, extra);
    expect(run.code, run.output).toBe(0);
    return run.stdout.trim();
  }

  /** A verified sender's folder, due a minute ago, with one musing and these recipients. */
  function dueFolder(databasePath: string, recipients: string[], note: string) {
    const database = openDatabase(databasePath);
    try {
      const folder = createFolder(database, createUser(database).id, {
        recipients: recipients.map((email) => ({ name: email.split("@")[0]!, email })),
        nextSendAt: new Date(Date.now() - 60_000),
      });
      createItem(database, folder.id, { note });
      return folder;
    } finally {
      database.$client.close();
    }
  }

  /** The next issue of a folder: a new musing, and its time come. */
  function nextIssueDue(databasePath: string, folderId: number, note: string) {
    const database = openDatabase(databasePath);
    try {
      createItem(database, folderId, { note });
      database.$client
        .prepare("UPDATE folders SET next_send_at = ? WHERE id = ?")
        .run(Date.now() - 1000, folderId);
    } finally {
      database.$client.close();
    }
  }

  function read<T>(databasePath: string, query: (database: Database.Database) => T) {
    const database = new Database(databasePath, { readonly: true, fileMustExist: true });
    try {
      return query(database);
    } finally {
      database.close();
    }
  }

  test(
    "an issue sent after the backup does not go again, and the next issue's Message-ID is new",
    async () => {
      const sink = await startSmtpSink();
      const smtp = { SMTP_URL: process.env.SMTP_URL!, MAIL_FROM: process.env.MAIL_FROM! };
      const dataDir = tempDir("thoughtfully-send-restore-");
      const databasePath = path.join(dataDir, "app.db");
      const family = ["mum@example.com", "dad@example.com"];
      const folder = dueFolder(databasePath, family, "First issue");

      const backup = await operatorCommand(dataDir, "db-backup");
      await operatorCommand(dataDir, "send-due", [], smtp);
      const firstIssue = sink.messages.map((message) => message.messageId);
      expect(firstIssue).toHaveLength(2);

      await operatorCommand(dataDir, "db-restore", [backup]);
      // What the restored database holds: the send, its copies and the folder emptied.
      const restored = read(databasePath, (database) => ({
        items: database
          .prepare("SELECT sent_at IS NOT NULL AS sent FROM content_items WHERE folder_id = ?")
          .pluck()
          .all(folder.id),
        ledgers: database
          .prepare("SELECT status FROM send_ledger WHERE folder_id = ?")
          .pluck()
          .all(folder.id),
        copies: database
          .prepare(
            "SELECT r.message_id FROM send_ledger_recipients r JOIN send_ledger l ON l.id = r.ledger_id WHERE l.folder_id = ? AND r.status = 'sent' ORDER BY r.message_id",
          )
          .pluck()
          .all(folder.id),
        nextSendAt: database
          .prepare("SELECT next_send_at FROM folders WHERE id = ?")
          .pluck()
          .get(folder.id) as number,
      }));
      expect(restored.items).toEqual([1]);
      expect(restored.ledgers).toEqual(["sent"]);
      expect(restored.copies).toEqual([...firstIssue].sort());
      expect(restored.nextSendAt).toBeGreaterThan(Date.now());

      // The operator has looked and lets it send: nothing of the first issue goes again.
      fs.rmSync(path.join(dataDir, "backups", "SCHEDULER-HOLD"));
      await operatorCommand(dataDir, "send-due", [], smtp);
      expect(sink.messages).toHaveLength(2);
      for (const email of family) expect(sink.to(email), email).toHaveLength(1);

      // A different issue later: Message-IDs never seen before.
      nextIssueDue(databasePath, folder.id, "Second issue");
      await operatorCommand(dataDir, "send-due", [], smtp);
      const secondIssue = sink.messages.slice(2).map((message) => message.messageId);
      expect(secondIssue).toHaveLength(2);
      for (const messageId of secondIssue) expect(firstIssue).not.toContain(messageId);

      // Restoring the same backup again changes nothing: the journal is replayed as often as asked.
      await operatorCommand(dataDir, "db-restore", [backup]);
      fs.rmSync(path.join(dataDir, "backups", "SCHEDULER-HOLD"));
      await operatorCommand(dataDir, "send-due", [], smtp);
      expect(sink.messages).toHaveLength(4);
    },
    TEST_TIMEOUT,
  );

  test(
    "a send cut short after the backup: the copies that went do not go again, the others go once",
    async () => {
      const sink = await startSmtpSink();
      const smtp = { SMTP_URL: process.env.SMTP_URL!, MAIL_FROM: process.env.MAIL_FROM! };
      const dataDir = tempDir("thoughtfully-cut-restore-");
      const databasePath = path.join(dataDir, "app.db");
      const family = ["ann@example.com", "bob@example.com", "cat@example.com"];
      dueFolder(databasePath, family, "Cut short");

      const backup = await operatorCommand(dataDir, "db-backup");
      // The pass dies right after its first copy is recorded.
      const killed = await runCommand(dataDir, "send-due", [], {
        ...smtp,
        THOUGHTFULLY_FAULT_POINT: "recipient-recorded#1",
      });
      expect(killed.signal, killed.output).toBe("SIGKILL");
      expect(sink.messages).toHaveLength(1);

      await operatorCommand(dataDir, "db-restore", [backup]);
      fs.rmSync(path.join(dataDir, "backups", "SCHEDULER-HOLD"));
      await operatorCommand(dataDir, "send-due", [], smtp);

      for (const email of family) expect(sink.to(email), email).toHaveLength(1);
      // One issue: every copy's Message-ID names the same send.
      const sends = new Set(
        sink.messages.map((message) => message.messageId!.replace(/-[0-9a-f]{16}@.*$/, "")),
      );
      expect(sends.size).toBe(1);
    },
    TEST_TIMEOUT,
  );
});
