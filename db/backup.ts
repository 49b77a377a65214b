import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
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
 * Writes a consistent copy of the live database with VACUUM INTO (safe while
 * the server writes), named by the UTC date, and keeps the newest seven.
 * The copy is made under a temporary name and renamed, so a crash never leaves
 * a half-written file that looks like a backup. The send journal keeps the
 * days from the oldest backup kept on (db/send-journal.ts).
 */
export function backupDatabase(
  sqlite: Database.Database,
  databasePath: string,
  now = new Date(),
  directory = backupDirectory(databasePath),
) {
  fs.mkdirSync(directory, { recursive: true });
  const target = path.join(directory, backupName(databasePath, now));
  const temporary = `${target}.partial`;
  fs.rmSync(temporary, { force: true });
  sqlite.prepare("VACUUM INTO ?").run(temporary);
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
