import { db } from "~/platform/db.server";
import { describeDiskRoom, diskRoom } from "~/platform/disk-reserve.server";
import { primaryInstance } from "~/platform/replication.server";

export function checkDatabase(): { ok: true; queryMs: number } | { ok: false; error: string } {
  const started = performance.now();
  try {
    // One row, not a count: the answer must not grow with the table.
    db.$client.prepare("SELECT 1 FROM users LIMIT 1").get();
    return { ok: true, queryMs: performance.now() - started };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Whether the database takes a write: the header's user_version set to its
 * own value, a write no table owns, rolled back, so it leaves nothing. It
 * needs the write lock and a writable file (a read-only mount or file fails
 * it); room on the disk is the reserve's part (app/platform/disk-reserve.server.ts).
 * It never waits for the lock: another connection holding it is writing, so
 * the database writes.
 */
export function checkDatabaseWrites(): { ok: true } | { ok: false; error: string } {
  const sqlite = db.$client;
  // Inside a transaction of this connection (an await in the middle of one), a write is under way.
  if (sqlite.inTransaction) return { ok: true };
  const busyTimeout = sqlite.prepare("PRAGMA busy_timeout").pluck().get() as number;
  sqlite.exec("PRAGMA busy_timeout = 0");
  try {
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      const version = sqlite.prepare("PRAGMA user_version").pluck().get() as number;
      sqlite.exec(`PRAGMA user_version = ${version}`);
    } finally {
      // SQLite may have rolled back already (after an I/O error).
      if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
    }
    return { ok: true };
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") return { ok: true };
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    sqlite.exec(`PRAGMA busy_timeout = ${busyTimeout}`);
  }
}

/** Why the machine is unhealthy, for the public answer and (with the details) the log; null when it is well. */
async function unhealthy(): Promise<{ answer: string; log: string } | null> {
  const read = checkDatabase();
  if (!read.ok) {
    return { answer: "Database unavailable", log: `database unavailable: ${read.error}` };
  }
  // A replica's copy is read-only by design (LiteFS): its writes go to the primary.
  if ((await primaryInstance()).isPrimary) {
    const write = checkDatabaseWrites();
    if (!write.ok) {
      return { answer: "Database cannot write", log: `the database cannot write: ${write.error}` };
    }
  }
  const room = diskRoom();
  if (room.state === "gone") {
    return {
      answer: "Disk nearly full: the space kept for the database is nearly gone",
      log: `less than half the disk's reserve for the database is left: ${describeDiskRoom(room)}`,
    };
  }
  return null;
}

/**
 * Fly's health check: 200 while the database answers a read, takes a write
 * and the disk keeps at least half its reserve for the database (uploads stop
 * at the whole of it, and the database's own writes then take from it at
 * once); 503 with a short reason otherwise. The
 * details go to the server's log, not to the public answer: database error
 * text names tables, paths and states an outsider has no use for.
 */
export async function healthResponse() {
  const problem = await unhealthy();
  if (problem) console.error(`[healthz] ${problem.log}`);
  return new Response(problem ? problem.answer : "OK", {
    status: problem ? 503 : 200,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
