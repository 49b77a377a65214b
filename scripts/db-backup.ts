import fs from "node:fs";
import path from "node:path";
import { backupDatabase, backupDirectory } from "#db/backup";
import { openDatabase } from "#db/connection";

/**
 * `npm run db:backup`: the nightly backup, on demand. Safe while the server
 * runs (VACUUM INTO reads a consistent snapshot); same-day runs overwrite.
 */
const databasePath = process.env.DATABASE_PATH || "./data/app.db";
const backupDir = process.env.BACKUP_DIR || backupDirectory(databasePath);

const db = openDatabase(databasePath);
try {
  const file = backupDatabase(db.$client, databasePath, new Date(), backupDir);
  giveToDatabaseOwner(file);
  console.log(file);
} finally {
  db.$client.close();
}

/**
 * Run as root (`fly ssh console`), the copy and its folder would belong to
 * root and the server, which runs as an unprivileged user, could no longer
 * write or prune its nightly backups there. Hand them to the database's owner.
 */
function giveToDatabaseOwner(file: string) {
  if (process.getuid?.() !== 0) return;
  const owner = fs.statSync(path.dirname(path.resolve(databasePath)));
  if (owner.uid === 0) return;
  for (const target of [path.dirname(file), file]) {
    fs.chownSync(target, owner.uid, owner.gid);
  }
}
