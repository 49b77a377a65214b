import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, test } from "vitest";
import { BACKUPS_KEPT, backupDatabase, backupDirectory, PAGES_PER_STEP } from "./backup";
import { type AppDatabase, openDatabase } from "./connection";
import { users } from "./schema";
import { appendSendRecord, sendJournalDays } from "./send-journal";

const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function liveDatabase(): { db: AppDatabase; databasePath: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-backup-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const databasePath = path.join(dir, "app.db");
  const db = openDatabase(databasePath);
  cleanups.push(() => db.$client.close());
  return { db, databasePath };
}

function emailsIn(file: string) {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return copy.prepare("SELECT email FROM users ORDER BY id").pluck().all() as string[];
  } finally {
    copy.close();
  }
}

const day = (n: number) => new Date(Date.UTC(2025, 0, n, 3, 0, 0));

describe("backupDatabase", () => {
  test("writes a consistent, openable copy named by the UTC date beside the database", async () => {
    const { db, databasePath } = liveDatabase();
    db.insert(users).values({ email: "kept@example.com", firstName: "Kept" }).run();

    const file = await backupDatabase(databasePath, day(5));

    expect(file).toBe(path.join(path.dirname(databasePath), "backups", "app-2025-01-05.db"));
    expect(path.dirname(file)).toBe(backupDirectory(databasePath));
    expect(emailsIn(file)).toEqual(["kept@example.com"]);
    // The copy is a whole database, not a WAL-mode file that needs its -wal beside it.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  test(`keeps only the ${BACKUPS_KEPT} newest backups`, async () => {
    const { db, databasePath } = liveDatabase();
    db.insert(users).values({ email: "someone@example.com" }).run();

    for (let n = 1; n <= 9; n++) await backupDatabase(databasePath, day(n));

    const kept = fs.readdirSync(backupDirectory(databasePath)).sort();
    expect(BACKUPS_KEPT).toBe(7);
    expect(kept).toEqual([3, 4, 5, 6, 7, 8, 9].map((n) => `app-2025-01-0${n}.db`));
  });

  test("a second backup on the same day overwrites the first and leaves no .partial file", async () => {
    const { db, databasePath } = liveDatabase();
    db.insert(users).values({ email: "first@example.com" }).run();
    const morning = await backupDatabase(databasePath, day(7));

    db.insert(users).values({ email: "second@example.com" }).run();
    const evening = await backupDatabase(databasePath, new Date(Date.UTC(2025, 0, 7, 22, 30)));

    expect(evening).toBe(morning);
    const files = fs.readdirSync(backupDirectory(databasePath));
    expect(files).toEqual(["app-2025-01-07.db"]);
    expect(files.some((name) => name.endsWith(".partial"))).toBe(false);
    expect(emailsIn(evening)).toEqual(["first@example.com", "second@example.com"]);
  });

  test("a .partial left behind by a crash is replaced, never kept as a backup", async () => {
    const { databasePath } = liveDatabase();
    const directory = backupDirectory(databasePath);
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, "app-2025-01-08.db.partial"), "half a file");

    await backupDatabase(databasePath, day(8));

    expect(fs.readdirSync(directory)).toEqual(["app-2025-01-08.db"]);
  });

  test("the send journal keeps the days from the oldest backup kept on", async () => {
    const { databasePath } = liveDatabase();
    const directory = backupDirectory(databasePath);
    for (let n = 1; n <= 9; n++) {
      await appendSendRecord(directory, {
        type: "sent",
        at: day(n).toISOString(),
        token: `token-${n}`,
        email: "mum@example.com",
        kind: "recipient",
        messageId: `<send-${n}@example.com>`,
      });
    }

    for (let n = 1; n <= 8; n++) await backupDatabase(databasePath, day(n));

    // Backups of the 2nd to the 8th are kept: a restore from the 2nd replays the 2nd on.
    expect(sendJournalDays(directory)).toEqual(
      [2, 3, 4, 5, 6, 7, 8, 9].map((n) => `2025-01-0${n}`),
    );
  });

  test("copies one snapshot in steps while another connection holds the write lock and writes", async () => {
    const { db, databasePath } = liveDatabase();
    const insert = db.$client.prepare("INSERT INTO users (email) VALUES (?)");
    db.$client.transaction(() => {
      for (let n = 0; n < 10_000; n++) insert.run(`before-${n}@example.com`);
    })();
    const pages = db.$client.pragma("page_count", { simple: true }) as number;
    expect(pages).toBeGreaterThan(3 * PAGES_PER_STEP);
    // Another connection holds the write lock from before the backup to its end, and writes.
    const writer = new Database(databasePath);
    cleanups.push(() => writer.close());
    writer.exec("BEGIN IMMEDIATE");
    writer.prepare("INSERT INTO users (email) VALUES ('uncommitted@example.com')").run();
    let turns = 0;
    const ticking = setInterval(() => {
      turns++;
    }, 0);
    const copying = backupDatabase(databasePath, day(9));
    writer.exec("COMMIT");
    writer.prepare("INSERT INTO users (email) VALUES ('after@example.com')").run();
    const file = await copying;
    clearInterval(ticking);

    const emails = emailsIn(file);
    expect(emails).toHaveLength(10_000);
    expect(emails).not.toContain("after@example.com");
    // The event loop ran between the steps.
    expect(turns).toBeGreaterThan(1);
  });
});
