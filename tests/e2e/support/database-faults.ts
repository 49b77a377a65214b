import crypto from "node:crypto";
import { testDb } from "./accounts";

/**
 * Makes SQLite refuse some writes, as a full disk would, for the rows a test
 * owns: one BEFORE trigger per condition (e.g. `INSERT ON content_items WHEN
 * NEW.folder_id = 7`), all dropped again when `work` ends, passed or failed.
 * The server sees the same database file, so its own writes fail for real.
 */
export async function whileDatabaseRefuses(conditions: string[], work: () => Promise<void>) {
  const db = testDb().$client;
  const names = conditions.map((condition) => {
    const name = `refuse_${crypto.randomBytes(6).toString("hex")}`;
    db.exec(
      `CREATE TRIGGER ${name} BEFORE ${condition} BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
    );
    return name;
  });
  try {
    await work();
  } finally {
    for (const name of names) db.exec(`DROP TRIGGER IF EXISTS ${name}`);
  }
}
