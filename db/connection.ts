import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type AppDatabase = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/**
 * The migrations folder is found from the working directory first (the server
 * build lives in build/, far from db/), then beside this file (scripts, tests).
 */
export function migrationsFolder() {
  const fromCwd = path.resolve("db/migrations");
  if (fs.existsSync(fromCwd)) return fromCwd;
  return path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
}

/**
 * Opens the SQLite file with the settings every process of ours uses:
 * WAL so readers never wait for the writer, foreign keys enforced, a busy
 * timeout so two processes queue instead of failing, and synchronous=FULL so a
 * committed write survives a power cut.
 */
export function openSqlite(databasePath: string) {
  fs.mkdirSync(path.dirname(path.resolve(databasePath)), { recursive: true });
  const sqlite = new Database(databasePath);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = FULL");
  return sqlite;
}

export function openDatabase(databasePath: string, options: { migrate?: boolean } = {}) {
  const sqlite = openSqlite(databasePath);
  const db = drizzle(sqlite, { schema }) as AppDatabase;
  if (options.migrate ?? true) {
    migrate(db, { migrationsFolder: migrationsFolder() });
  }
  return db;
}
