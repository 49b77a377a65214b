import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import {
  appendSendRecord,
  type CopySent,
  pruneSendJournal,
  readSendRecords,
  sendJournalDays,
  sendJournalDirectory,
} from "./send-journal";

const cleanups: string[] = [];
afterEach(() => {
  for (const dir of cleanups.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function backupDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-send-journal-"));
  cleanups.push(dir);
  return path.join(dir, "backups");
}

const copy = (at: string, email: string): CopySent => ({
  type: "sent",
  at,
  token: "0f".repeat(16),
  email,
  kind: "recipient",
  messageId: `<send-${email}@example.com>`,
});

test("records are read back in order across days; a line cut short by a crash is skipped", async () => {
  const dir = backupDir();
  expect(readSendRecords(dir)).toEqual([]);
  const first = copy("2026-11-30T23:59:59.000Z", "mum@example.com");
  const second = copy("2026-12-01T00:00:01.000Z", "dad@example.com");
  await appendSendRecord(dir, first);
  await appendSendRecord(dir, second);
  fs.appendFileSync(
    path.join(sendJournalDirectory(dir), "sends-2026-12-01.jsonl"),
    '{"type":"sent","at":"2026-12-01T',
  );

  expect(sendJournalDays(dir)).toEqual(["2026-11-30", "2026-12-01"]);
  expect(readSendRecords(dir)).toEqual([first, second]);
});

test("the file is only ever appended to, and only its owner reads it", async () => {
  const dir = backupDir();
  await appendSendRecord(dir, copy("2026-12-01T10:00:00.000Z", "mum@example.com"));
  const file = path.join(sendJournalDirectory(dir), "sends-2026-12-01.jsonl");
  const before = fs.readFileSync(file, "utf8");
  await appendSendRecord(dir, copy("2026-12-01T10:00:01.000Z", "dad@example.com"));

  expect(fs.readFileSync(file, "utf8").startsWith(before)).toBe(true);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
});

test("pruning deletes the days before the oldest backup's, and nothing else", async () => {
  const dir = backupDir();
  for (const day of ["2026-11-24", "2026-11-25", "2026-11-26"]) {
    await appendSendRecord(dir, copy(`${day}T10:00:00.000Z`, "mum@example.com"));
  }
  fs.writeFileSync(path.join(sendJournalDirectory(dir), "notes.txt"), "kept");

  expect(pruneSendJournal(dir, "2026-11-25")).toEqual(["2026-11-24"]);
  expect(sendJournalDays(dir)).toEqual(["2026-11-25", "2026-11-26"]);
  expect(fs.existsSync(path.join(sendJournalDirectory(dir), "notes.txt"))).toBe(true);
  expect(pruneSendJournal(backupDir(), "2026-11-25")).toEqual([]);
});

test.skipIf(process.getuid?.() !== 0)(
  "run as root, a new day's file and folder go to the backup folder's owner",
  async () => {
    const dir = backupDir();
    fs.mkdirSync(dir);
    fs.chownSync(dir, 65534, 65534);

    await appendSendRecord(dir, copy("2026-12-01T10:00:00.000Z", "mum@example.com"));

    const file = path.join(sendJournalDirectory(dir), "sends-2026-12-01.jsonl");
    expect(fs.statSync(sendJournalDirectory(dir)).uid).toBe(65534);
    expect(fs.statSync(file)).toMatchObject({ uid: 65534, gid: 65534 });
  },
);
