import fs from "node:fs";
import path from "node:path";
import { backupDatabase, backupDirectory } from "#db/backup";

/**
 * `npm run db:backup`: the nightly backup, on demand. Safe while the server
 * runs: the online backup reads one snapshot and takes no write lock, so the
 * server's writes never wait for it; same-day runs overwrite.
 */
const databasePath = process.env.DATABASE_PATH || "./data/app.db";
const backupDir = process.env.BACKUP_DIR || backupDirectory(databasePath);

const file = await backupDatabase(databasePath, new Date(), backupDir);
giveToDatabaseOwner(file);
console.log(file);

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
