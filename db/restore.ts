import fs from "node:fs";
import path from "node:path";

/**
 * What a restore needs beyond the backup file itself (docs/deploy.md,
 * "Restore drill"): the recipients' choices made since, and a hold that keeps
 * the scheduler from sending until an operator has looked.
 *
 * Both live in the backup directory, not in the database, so they survive
 * whatever made the restore necessary, and they travel with the backups when
 * those are copied off the machine.
 */

export type RecipientChoice = {
  at: string;
  /** "refuse-requests": "Don't ask me again", for the address, not a folder. */
  choice: "unsubscribe" | "resubscribe" | "refuse-requests";
  folderId?: number;
  email: string;
  scope?: "folder" | "everything";
  reason?: string;
};

const CHOICES_FILE = "recipient-choices.jsonl";
const HOLD_FILE = "SCHEDULER-HOLD";

export function choicesJournalPath(backupDir: string) {
  return path.join(backupDir, CHOICES_FILE);
}

export function schedulerHoldPath(backupDir: string) {
  return path.join(backupDir, HOLD_FILE);
}

/**
 * Appends one recipient's choice as a line of JSON and fsyncs it before
 * returning: the caller writes it before committing the change to the
 * database, so no choice the database holds is missing here.
 */
export function appendRecipientChoice(backupDir: string, choice: RecipientChoice) {
  fs.mkdirSync(backupDir, { recursive: true });
  const handle = fs.openSync(choicesJournalPath(backupDir), "a", 0o600);
  try {
    fs.writeSync(handle, `${JSON.stringify(choice)}\n`);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

/** Every recorded choice, oldest first; a line cut short by a crash is skipped. */
export function readRecipientChoices(backupDir: string): RecipientChoice[] {
  let text: string;
  try {
    text = fs.readFileSync(choicesJournalPath(backupDir), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const choices: RecipientChoice[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      choices.push(JSON.parse(line) as RecipientChoice);
    } catch {
      // Only the last line can be partial (appends are fsynced one by one).
    }
  }
  return choices;
}

/** Why the scheduler is held, or null when it may run. */
export function schedulerHold(backupDir: string): string | null {
  try {
    return fs.readFileSync(schedulerHoldPath(backupDir), "utf8").trim() || "held";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Holds the scheduler: a server started now sends nothing until the file is removed. */
export function holdScheduler(backupDir: string, reason: string) {
  fs.mkdirSync(backupDir, { recursive: true });
  fs.writeFileSync(
    schedulerHoldPath(backupDir),
    `${reason}\nThe scheduler stays off until this file is removed (docs/deploy.md, "Restore drill").\n`,
  );
}

/**
 * Moves the database files at `databasePath` (`app.db`, `-wal`, `-shm`) into
 * `keptIn`, never deleting them, then renames `stagedFile` into its place.
 * The staged copy must be on the same filesystem as the database.
 */
export function replaceDatabase(stagedFile: string, databasePath: string, keptIn: string) {
  fs.mkdirSync(keptIn, { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) {
    const file = `${databasePath}${suffix}`;
    if (fs.existsSync(file)) fs.renameSync(file, path.join(keptIn, path.basename(file)));
  }
  fs.renameSync(stagedFile, databasePath);
}
