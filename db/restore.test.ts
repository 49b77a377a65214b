import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import {
  appendRecipientChoice,
  choicesJournalPath,
  holdScheduler,
  readRecipientChoices,
  replaceDatabase,
  schedulerHold,
  schedulerHoldPath,
} from "./restore";

const cleanups: string[] = [];
afterEach(() => {
  for (const dir of cleanups.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-restore-"));
  cleanups.push(dir);
  return dir;
}

test("choices are read back in order; a line cut short by a crash is skipped", () => {
  const dir = path.join(tempDir(), "backups");
  expect(readRecipientChoices(dir)).toEqual([]);
  const first = {
    at: "2026-11-20T10:00:00.000Z",
    choice: "unsubscribe" as const,
    folderId: 1,
    email: "a@example.com",
    scope: "everything" as const,
  };
  const second = {
    at: "2026-11-21T10:00:00.000Z",
    choice: "resubscribe" as const,
    folderId: 1,
    email: "a@example.com",
  };
  appendRecipientChoice(dir, first);
  appendRecipientChoice(dir, second);
  fs.appendFileSync(choicesJournalPath(dir), '{"at":"2026-11-22T');
  expect(readRecipientChoices(dir)).toEqual([first, second]);
});

test("the hold says why until it is removed", () => {
  const dir = tempDir();
  expect(schedulerHold(dir)).toBeNull();
  holdScheduler(dir, "Restored app-2026-11-20.db at 2026-11-23T10:00:00.000Z.");
  expect(schedulerHold(dir)).toMatch(/^Restored app-2026-11-20\.db/);
  fs.rmSync(schedulerHoldPath(dir));
  expect(schedulerHold(dir)).toBeNull();
});

test("replacing the database keeps the replaced files, WAL and all", () => {
  const dir = tempDir();
  const databasePath = path.join(dir, "app.db");
  for (const suffix of ["", "-wal", "-shm"])
    fs.writeFileSync(`${databasePath}${suffix}`, `old${suffix}`);
  const staged = `${databasePath}.restoring`;
  fs.writeFileSync(staged, "restored");
  const keptIn = path.join(dir, "backups", "before-restore-1");
  replaceDatabase(staged, databasePath, keptIn);
  expect(fs.readFileSync(databasePath, "utf8")).toBe("restored");
  expect(fs.existsSync(`${databasePath}-wal`)).toBe(false);
  expect(fs.existsSync(`${databasePath}-shm`)).toBe(false);
  expect(fs.readdirSync(keptIn).sort()).toEqual(["app.db", "app.db-shm", "app.db-wal"]);
  expect(fs.readFileSync(path.join(keptIn, "app.db-wal"), "utf8")).toBe("old-wal");
});
