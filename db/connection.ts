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
 * How long a write waits for the write lock another connection holds before
 * SQLite answers SQLITE_BUSY. better-sqlite3 is synchronous: the wait holds its
 * thread. Right for the scheduler's thread and the operator's commands, which
 * hold up no one else; the web server's connection waits far less
 * (REQUEST_LOCK_WAIT_MS, app/platform/db.server.ts).
 */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the SQLite file with the settings every process of ours uses:
 * WAL so readers never wait for the writer, foreign keys enforced, a busy
 * timeout so two connections queue instead of failing, and synchronous=FULL so a
 * committed write survives a power cut.
 */
export function openSqlite(databasePath: string) {
  fs.mkdirSync(path.dirname(path.resolve(databasePath)), { recursive: true });
  const sqlite = new Database(databasePath);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma("synchronous = FULL");
  reuseStatements(sqlite);
  return sqlite;
}

/** Distinct SQL texts whose compiled statements a connection keeps. */
export const STATEMENTS_KEPT = 500;

/**
 * The connection compiles each SQL text once and hands out that statement
 * again. Drizzle prepares a query's statement every time the query runs, and
 * better-sqlite3 frees a statement only when V8 collects its small wrapper,
 * which a thread with a small heap does rarely: the scheduler's pass of 6,000
 * senders held 190 MB of SQLite's memory that way, 20,000 senders 650 MB
 * (docs/decisions/0231-one-statement-per-sql-text.md). A statement handed out
 * again is reset to give rows as objects, as a new one does; one still being
 * iterated is not handed out twice. Past STATEMENTS_KEPT texts, the least
 * recently used is let go, for V8 to free.
 */
export function reuseStatements(sqlite: Database.Database) {
  const compile = sqlite.prepare.bind(sqlite);
  const kept = new Map<string, Database.Statement>();
  sqlite.prepare = ((source: string) => {
    const statement = kept.get(source);
    if (statement?.busy) return compile(source);
    if (statement) {
      // A Map iterates in insertion order: the most recently used goes last.
      kept.delete(source);
      kept.set(source, statement);
      if (statement.reader) statement.raw(false).pluck(false).expand(false);
      return statement;
    }
    const compiled = compile(source);
    kept.set(source, compiled);
    if (kept.size > STATEMENTS_KEPT) kept.delete(kept.keys().next().value as string);
    return compiled;
  }) as typeof sqlite.prepare;
}

export function openDatabase(databasePath: string, options: { migrate?: boolean } = {}) {
  const sqlite = openSqlite(databasePath);
  const db = drizzle(sqlite, { schema }) as AppDatabase;
  if (options.migrate ?? true) {
    migrate(db, { migrationsFolder: migrationsFolder() });
  }
  return db;
}
