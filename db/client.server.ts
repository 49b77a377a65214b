import { env } from "~/utils/env.server";
import { singleton } from "~/utils/singleton.server";
import { type AppDatabase, openDatabase } from "./connection";

/**
 * The one database handle of the server process, migrated on first use. Kept
 * on globalThis so a development rebuild does not open a second connection.
 */
export const db: AppDatabase = singleton("database", () => openDatabase(env.DATABASE_PATH));

/**
 * Writes that read then write run in an immediate transaction: the write lock is
 * taken at BEGIN, so two requests (or two processes) cannot both read the old
 * value and both act on it.
 */
export function writeTransaction<T>(
  work: (tx: Parameters<Parameters<AppDatabase["transaction"]>[0]>[0]) => T,
): T {
  return db.transaction(work, { behavior: "immediate" });
}
