import { type ChildProcess, fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

/**
 * A second connection that holds SQLite's write lock, from a process of its
 * own, as an operator's `sqlite3` shell, `npm run send:due` or a stuck script
 * would: `BEGIN IMMEDIATE` on the database at `databasePath`, held until
 * `release()` or for `holdMs` at most, then rolled back (nothing written).
 * Resolves once the lock is held. Run as a script, it is that process.
 */
export type HeldLock = { release: () => Promise<void>; process: ChildProcess };

const thisFile = fileURLToPath(import.meta.url);

export async function holdWriteLock(databasePath: string, holdMs: number): Promise<HeldLock> {
  const holder = fork(thisFile, [databasePath, String(holdMs)], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, NODE_OPTIONS: "" },
    cwd: path.resolve(path.dirname(thisFile), "..", ".."),
  });
  const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    holder.once("message", (message) =>
      message === "held" ? resolve() : reject(new Error(String(message))),
    );
    holder.once("exit", (code) => reject(new Error(`The lock holder exited with ${code}`)));
  });
  return {
    process: holder,
    async release() {
      if (holder.exitCode === null && holder.signalCode === null) holder.send("release");
      await exited;
    },
  };
}

if (process.argv[1] === thisFile) {
  const [databasePath, holdMs] = [process.argv[2]!, Number(process.argv[3])];
  const connection = new Database(databasePath);
  // Waits for the lock as long as it may be held; the app's own writes are what is measured.
  connection.pragma("busy_timeout = 10000");
  connection.exec("BEGIN IMMEDIATE");
  const end = () => {
    connection.exec("ROLLBACK");
    connection.close();
    process.exit(0);
  };
  const timer = setTimeout(end, holdMs);
  process.on("message", (message) => {
    if (message !== "release") return;
    clearTimeout(timer);
    end();
  });
  process.send!("held");
}
