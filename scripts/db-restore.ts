import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  holdScheduler,
  type RecipientChoice,
  readRecipientChoices,
  replaceDatabase,
} from "#db/restore";
import { readSendRecords, sendJournalDays } from "#db/send-journal";

/**
 * `npm run db:restore -- <backup.db>` (scripts/db-restore.ts, built): the restore drill of
 * docs/deploy.md, with the server stopped.
 *
 * 1. Holds the scheduler (BACKUP_DIR/SCHEDULER-HOLD): the server restarted
 *    on the restored data sends nothing until an operator removes the hold.
 * 2. Copies the backup beside the database and migrates it.
 * 3. Reapplies every unsubscribe and re-subscribe in the journal
 *    (BACKUP_DIR/recipient-choices.jsonl), in order, so no one who opted out
 *    after the backup is written to again.
 * 4. Replays the send journal (BACKUP_DIR/send-journal/), so nothing sent
 *    after the backup goes again (app/modules/sending/restored-sends.server.ts).
 * 5. Puts the copy in place: the files it replaces go to
 *    BACKUP_DIR/before-restore-<time>/. With LiteFS (LITEFS_DIR set), hands
 *    the copy to `litefs import` instead, which replicates it.
 *
 * The live database is untouched until step 5; a failure before it leaves
 * only the hold, which keeps the scheduler off on purpose. Run twice, it
 * restores the same: both journals replay idempotently.
 */
const REPLAY_FLAG = "--replay-choices-from";

async function replayInto(journalDir: string) {
  // DATABASE_PATH is the staged copy here (set by the parent), and BACKUP_DIR
  // a scratch folder, so replaying does not append to the real journals.
  const [
    { unsubscribe, resubscribe, refuseResubscribeRequests, UnknownFolderError },
    { replaySends },
    { db },
  ] = await Promise.all([
    import("~/modules/recipients/opt-outs.server"),
    import("~/modules/sending/restored-sends.server"),
    import("~/platform/db.server"),
  ]);
  let applied = 0;
  let skipped = 0;
  const apply = (choice: RecipientChoice) => {
    if (choice.choice === "refuse-requests") {
      refuseResubscribeRequests(choice.email);
      return;
    }
    if (choice.folderId === undefined) throw new UnknownFolderError();
    if (choice.choice === "unsubscribe") {
      unsubscribe({
        folderId: choice.folderId,
        email: choice.email,
        scope: choice.scope ?? "folder",
        reason: choice.reason as Parameters<typeof unsubscribe>[0]["reason"],
      });
    } else {
      resubscribe(choice.folderId, choice.email);
    }
  };
  for (const choice of readRecipientChoices(journalDir)) {
    try {
      apply(choice);
      applied += 1;
    } catch (error) {
      // A folder created after the backup is not in it: nothing to send to.
      if (!(error instanceof UnknownFolderError)) throw error;
      skipped += 1;
    }
  }
  console.log(`Reapplied ${applied} recipient choices (${skipped} for folders not in the backup).`);

  const sends = replaySends(readSendRecords(journalDir));
  db.$client.close();
  const [firstDay] = sendJournalDays(journalDir);
  console.log(
    `Replayed the send journal${firstDay ? ` (from ${firstDay})` : ""}: ${sends.sends} sends the backup did not have, ${sends.copies} copies marked sent, ${sends.finished} sends finished (${sends.skipped} for folders not in the backup).`,
  );
}

async function restore(backupFile: string) {
  const { env } = await import("~/platform/env.server");
  const databasePath = path.resolve(env.DATABASE_PATH);
  const backupDir = path.resolve(env.BACKUP_DIR);
  if (!fs.existsSync(backupFile)) throw new Error(`No backup at ${backupFile}`);
  const now = new Date();
  const stamp = now.toISOString().replace(/[:.]/g, "-");

  holdScheduler(backupDir, `Restored ${path.basename(backupFile)} at ${now.toISOString()}.`);

  // Beside the database (one filesystem, so the final rename is atomic), or
  // in BACKUP_DIR under LiteFS, whose mount holds only databases it manages.
  const staged = env.LITEFS_DIR
    ? path.join(backupDir, `restoring-${stamp}.db`)
    : `${databasePath}.restoring`;
  fs.copyFileSync(backupFile, staged);

  const scratch = fs.mkdtempSync(path.join(backupDir, "replay-"));
  try {
    const replay = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), REPLAY_FLAG, backupDir],
      {
        stdio: "inherit",
        env: { ...process.env, DATABASE_PATH: staged, BACKUP_DIR: scratch, SCHEDULER: "off" },
      },
    );
    if (replay.status !== 0) {
      throw new Error(`Replaying the journals failed; ${databasePath} is unchanged.`);
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  for (const suffix of ["-wal", "-shm"]) fs.rmSync(`${staged}${suffix}`, { force: true });

  if (env.LITEFS_DIR) {
    const imported = spawnSync("litefs", ["import", "-name", path.basename(databasePath), staged], {
      stdio: "inherit",
    });
    if (imported.status !== 0) throw new Error(`litefs import failed; the copy is at ${staged}`);
    fs.rmSync(staged);
    console.log(`Imported into LiteFS as ${path.basename(databasePath)}.`);
  } else {
    const keptIn = path.join(backupDir, `before-restore-${stamp}`);
    replaceDatabase(staged, databasePath, keptIn);
    console.log(`Restored ${backupFile} to ${databasePath}; the replaced files are in ${keptIn}.`);
  }
  console.log(
    `The scheduler is held: start the server, check it, then remove ${path.join(backupDir, "SCHEDULER-HOLD")}.`,
  );
}

const [first, second] = process.argv.slice(2);
if (first === REPLAY_FLAG && second) {
  await replayInto(second);
} else if (first) {
  await restore(path.resolve(first));
} else {
  console.error("Usage: npm run db:restore -- <backup.db>");
  process.exitCode = 2;
}
