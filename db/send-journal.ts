import fs from "node:fs";
import path from "node:path";

/**
 * The send journal: what every send put in the relay's hands, kept beside the
 * backups (BACKUP_DIR/send-journal/) so a restore from an older backup knows
 * what went out since and sends none of it again (scripts/db-restore.ts,
 * docs/decisions/0244-a-restore-knows-what-was-sent.md).
 *
 * Append-only, one JSON line a record, in one file per UTC day
 * (`sends-YYYY-MM-DD.jsonl`), so trimming it is deleting whole files that no
 * writer holds: a nightly or on-demand backup deletes the days before its
 * oldest kept backup (`pruneSendJournal`), which already holds them.
 */

export type JournalRecipient = { id: number; email: string; kind: "recipient" | "cc" };

/** A send about to put copies in the relay's hands: written, and on disk, before the first. */
export type SendOpened = {
  type: "opened";
  at: string;
  token: string;
  ledgerId: number;
  folderId: number;
  occurrenceKey: string;
  trigger: "schedule" | "send_now";
  itemIds: number[];
  tracked: boolean;
  issueNote: string | null;
  openedAt: string;
  recipients: JournalRecipient[];
};

/** One copy the relay accepted. */
export type CopySent = {
  type: "sent";
  at: string;
  token: string;
  email: string;
  kind: "recipient" | "cc";
  messageId: string;
};

/** The send is over: every copy's outcome. */
export type SendFinished = {
  type: "finished";
  at: string;
  token: string;
  status: "sent" | "failed";
  recipients: {
    email: string;
    kind: "recipient" | "cc";
    status: "pending" | "sent" | "failed" | "bounced" | "skipped";
  }[];
};

export type SendRecord = SendOpened | CopySent | SendFinished;

const SEGMENT = /^sends-(\d{4}-\d{2}-\d{2})\.jsonl$/;

export function sendJournalDirectory(backupDir: string) {
  return path.join(backupDir, "send-journal");
}

function segmentPath(backupDir: string, day: string) {
  return path.join(sendJournalDirectory(backupDir), `sends-${day}.jsonl`);
}

/**
 * Appends one record to today's file. The line is written at once; the
 * returned promise settles when it is on disk, the fsync run off the event
 * loop (a send waits for it as for its own database write). A new day's file
 * also has its folder entry made durable.
 */
export function appendSendRecord(backupDir: string, record: SendRecord): Promise<void> {
  const file = segmentPath(backupDir, record.at.slice(0, 10));
  const directory = path.dirname(file);
  const isNew = !fs.existsSync(file);
  if (isNew && !fs.existsSync(directory)) {
    fs.mkdirSync(directory, { recursive: true });
    giveToOwnerOf(backupDir, directory);
  }
  const handle = fs.openSync(file, "a", 0o600);
  try {
    fs.writeSync(handle, `${JSON.stringify(record)}\n`);
  } catch (error) {
    fs.closeSync(handle);
    throw error;
  }
  if (isNew) {
    giveToOwnerOf(backupDir, file);
    fsyncDirectory(directory);
  }
  return new Promise((resolve, reject) =>
    fs.fdatasync(handle, (error) => fs.close(handle, () => (error ? reject(error) : resolve()))),
  );
}

/**
 * Run as root (`npm run send:due` over SSH), a file this makes would be root's,
 * and the server, which runs unprivileged, could no longer append to that day's
 * file: it goes to the backup folder's owner.
 */
function giveToOwnerOf(backupDir: string, target: string) {
  if (process.getuid?.() !== 0) return;
  const owner = fs.statSync(backupDir);
  if (owner.uid !== 0) fs.chownSync(target, owner.uid, owner.gid);
}

function fsyncDirectory(directory: string) {
  const handle = fs.openSync(directory, "r");
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

/** The days the journal holds, oldest first. */
export function sendJournalDays(backupDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(sendJournalDirectory(backupDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names
    .map((name) => SEGMENT.exec(name)?.[1])
    .filter((day): day is string => day !== undefined)
    .sort();
}

/** Every record, oldest first; a line cut short by a crash is skipped. */
export function readSendRecords(backupDir: string): SendRecord[] {
  const records: SendRecord[] = [];
  for (const day of sendJournalDays(backupDir)) {
    for (const line of fs.readFileSync(segmentPath(backupDir, day), "utf8").split("\n")) {
      if (!line.trim()) continue;
      try {
        records.push(JSON.parse(line) as SendRecord);
      } catch {
        // Only a file's last line can be partial: its write was the one a crash cut.
      }
    }
  }
  return records;
}

/**
 * Deletes the days before `oldestBackupDay` (YYYY-MM-DD, the UTC day of the
 * oldest backup kept): that backup holds every send finished before it, and a
 * restore from it replays its own day onwards. Returns the days deleted.
 */
export function pruneSendJournal(backupDir: string, oldestBackupDay: string) {
  const old = sendJournalDays(backupDir).filter((day) => day < oldestBackupDay);
  for (const day of old) fs.rmSync(segmentPath(backupDir, day), { force: true });
  return old;
}
