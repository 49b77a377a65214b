import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { pruneSendJournal } from "./send-journal";

export const BACKUPS_KEPT = 7;

/** Where backups go unless BACKUP_DIR says otherwise: `backups/` beside the database. */
export function backupDirectory(databasePath: string) {
  return path.join(path.dirname(path.resolve(databasePath)), "backups");
}

function backupName(databasePath: string, date: Date) {
  const base = path.basename(databasePath, path.extname(databasePath));
  return `${base}-${date.toISOString().slice(0, 10)}.db`;
}

/**
 * Pages the online backup copies per step: 100 pages of 4 KiB take a few ms,
 * and between steps the process's other work runs (a 91 MB database: 223
 * steps, none past 15 ms, where one VACUUM INTO held the thread for 490 ms).
 */
export const PAGES_PER_STEP = 100;

/** The copy under way, and what SQLite makes beside it while it is opened. */
function partialFiles(temporary: string) {
  return [temporary, `${temporary}-wal`, `${temporary}-shm`, `${temporary}-journal`];
}

/**
 * Writes a consistent copy of the live database with SQLite's online backup,
 * in steps of PAGES_PER_STEP (better-sqlite3's `backup`, which yields to the
 * event loop between steps), named by the UTC date, and keeps the newest
 * seven. It reads through a connection of its own, one snapshot from the first
 * page to the last (a read transaction held open: no write lock, in WAL no
 * writer waits for it, and another connection's writes meanwhile do not make
 * the copy start over). The copy is made under a temporary name and renamed,
 * so a crash never leaves a half-written file that looks like a backup
 * (docs/decisions/0246-a-busy-database-is-a-503-quickly.md). The send journal
 * keeps the days from the oldest backup kept on (db/send-journal.ts).
 */
export async function backupDatabase(
  databasePath: string,
  now = new Date(),
  directory = backupDirectory(databasePath),
) {
  fs.mkdirSync(directory, { recursive: true });
  const target = path.join(directory, backupName(databasePath, now));
  const temporary = `${target}.partial`;
  for (const file of partialFiles(temporary)) fs.rmSync(file, { force: true });
  const source = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    source.exec("BEGIN");
    // The first read opens the snapshot every step then copies from.
    source.prepare("SELECT 1 FROM sqlite_schema LIMIT 1").get();
    await source.backup(temporary, { progress: () => PAGES_PER_STEP });
    source.exec("COMMIT");
  } finally {
    source.close();
  }
  // A whole database on its own, as a restore copies it: not a WAL file needing its -wal beside it.
  const copy = new Database(temporary);
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
  fs.renameSync(temporary, target);
  const kept = pruneBackups(directory, path.basename(databasePath, path.extname(databasePath)));
  pruneSendJournal(directory, kept.at(-1)!);
  return target;
}

/** Deletes all but the newest seven; the UTC days of those kept, newest first. */
function pruneBackups(directory: string, base: string) {
  const pattern = new RegExp(`^${base}-(\\d{4}-\\d{2}-\\d{2})\\.db$`);
  const backups = fs
    .readdirSync(directory)
    .filter((name) => pattern.test(name))
    .sort()
    .reverse();
  for (const old of backups.slice(BACKUPS_KEPT)) {
    fs.rmSync(path.join(directory, old));
  }
  return backups.slice(0, BACKUPS_KEPT).map((name) => pattern.exec(name)![1]!);
}
