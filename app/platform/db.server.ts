import fs from "node:fs";
import { fillPlaceholders, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { type AppDatabase, openDatabase } from "#db/connection";
import type { Transaction } from "#db/types";
import { env } from "./env.server";
import { isPrimaryAtStart } from "./replication.server";
import { singleton } from "./singleton.server";

/**
 * The one database handle of the server process, migrated on first use (by
 * the primary only: LiteFS replicates the migrated schema to replicas). Kept
 * on globalThis so a development rebuild does not open a second connection.
 */
export const db: AppDatabase = singleton("database", () =>
  openDatabase(env.DATABASE_PATH, { migrate: isPrimaryAtStart() }),
);

/**
 * How long a write of the web server's thread waits for a write lock held by
 * another connection (the scheduler's thread, `npm run send:due`, an
 * operator's `sqlite3`) before SQLite answers SQLITE_BUSY. The wait holds the
 * event loop, every other request with it: a quarter of a second, long enough
 * for a holder descheduled mid-commit on a busy or throttled CPU to finish,
 * never the seconds a background connection waits (BUSY_TIMEOUT_MS,
 * db/connection.ts). The request is then answered 503
 * (app/platform/database-busy.server.ts).
 */
export const REQUEST_LOCK_WAIT_MS = 250;

/** The server's own connection waits REQUEST_LOCK_WAIT_MS from here on (app/lifecycle.server.ts). */
export function waitBrieflyForTheWriteLock() {
  // By exec, as every pragma run again (docs/decisions/0231-one-statement-per-sql-text.md).
  db.$client.exec(`PRAGMA busy_timeout = ${REQUEST_LOCK_WAIT_MS}`);
}

/**
 * Writes that read then write run in an immediate transaction: the write lock is
 * taken at BEGIN, so two requests (or two processes) cannot both read the old
 * value and both act on it.
 */
export function writeTransaction<T>(work: (tx: Transaction) => T): T {
  return db.transaction(work, { behavior: "immediate" });
}

/**
 * `writeTransaction` committed without waiting for the disk: with
 * synchronous=NORMAL for this one commit, SQLite writes it into the WAL (so it
 * survives the process dying: the operating system has it) but does not fsync
 * it. The next commit made with synchronous=FULL, the setting of every other
 * write (db/connection.ts), fsyncs the WAL and with it every commit before: a
 * power cut loses only the commits after the last such fsync, never one in the
 * middle. For group commit: app/modules/sending/sending.server.ts,
 * docs/decisions/0067-group-commit-of-the-send-ledgers-writes.md.
 */
export function writeTransactionWithoutFsync<T>(work: (tx: Transaction) => T): T {
  // Inside another transaction, its commit is the one that counts (and SQLite
  // refuses to change the setting there).
  if (db.$client.inTransaction) return writeTransaction(work);
  // Not a prepared statement run again: SQLite applies this pragma while compiling it. Nor
  // `pragma()`, whose statement lives until V8 collects it: two a commit, one commit a message
  // sent (docs/decisions/0231-one-statement-per-sql-text.md). `exec` compiles, runs and frees it.
  db.$client.exec("PRAGMA synchronous = NORMAL");
  try {
    return writeTransaction(work);
  } finally {
    db.$client.exec("PRAGMA synchronous = FULL");
  }
}

/**
 * `writeTransaction` whose fsync runs off the event loop: committed as
 * `writeTransactionWithoutFsync` does, then the WAL file is fdatasync'ed on
 * libuv's thread pool, which is what synchronous=FULL does inside the commit
 * (SQLite syncs the WAL with fdatasync on Linux), but without holding up
 * every request of the process for the disk meanwhile. Resolves once the
 * commit, and every one before it, is on disk. For the send's "sent" marks:
 * app/modules/sending/sending.server.ts,
 * docs/decisions/0077-the-sent-marks-fsync-off-the-event-loop.md.
 */
export async function writeTransactionWithAsyncFsync<T>(work: (tx: Transaction) => T): Promise<T> {
  const result = writeTransactionWithoutFsync(work);
  if (db.$client.memory) return result;
  const fd = walDescriptor(`${db.$client.name}-wal`);
  await new Promise<void>((resolve, reject) =>
    fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())),
  );
  return result;
}

/**
 * The WAL's file descriptor, kept open: opening and closing it around every
 * fsync made three trips to the thread pool of one, all inside the window a
 * send's next message waits on (docs/decisions/0224-the-send-engines-own-cost.md).
 * SQLite keeps the WAL while this process's connection is open; should the
 * file at the path be another one (deleted and made again), it is opened anew.
 */
let wal: { path: string; fd: number; ino: number } | undefined;
function walDescriptor(walPath: string) {
  const { ino } = fs.statSync(walPath);
  if (wal?.path === walPath && wal.ino === ino) return wal.fd;
  if (wal) fs.closeSync(wal.fd);
  const fd = fs.openSync(walPath, "r");
  wal = { path: walPath, fd, ino: fs.fstatSync(fd).ino };
  return fd;
}

/**
 * A query built and compiled once, on first use, then run with new values
 * through its `sql.placeholder`s. For the queries of every page view (the
 * session, the dashboard): building the SQL and preparing the statement each
 * time cost about as much as running it
 * (docs/decisions/0032-delegated-links-forms-and-prepared-queries.md).
 */
export function prepareOnce<T>(build: (database: AppDatabase) => T): () => T {
  let prepared: T | undefined;
  return () => {
    prepared ??= build(db);
    return prepared;
  };
}

const dialect = new SQLiteSyncDialect();

/**
 * `prepareOnce` for raw SQL (drizzle prepares only its query builders): the
 * statement is compiled on first use; `values` fill its `sql.placeholder`s.
 */
export function prepareSqlOnce<Row>(query: SQL) {
  const compiled = prepareOnce((database) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return { statement: database.$client.prepare<unknown[], Row>(text), params };
  });
  return {
    all(values: Record<string, unknown>): Row[] {
      const { statement, params } = compiled();
      return statement.all(...fillPlaceholders(params, values));
    },
    get(values: Record<string, unknown>): Row | undefined {
      const { statement, params } = compiled();
      return statement.get(...fillPlaceholders(params, values));
    },
  };
}
