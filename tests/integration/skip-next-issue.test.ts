import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { folders, sendLedger } from "#db/schema";
import { startSmtpSink } from "../support/integration";

/**
 * Skip the next issue against the real scheduler pass and SMTP sink
 * (docs/decisions/0213-skip-the-next-issue.md): on the skipped day nothing is
 * opened or sent; on the day after it the issue goes once; the clock passes
 * across London's change back to GMT on Sunday 25 October 2026.
 */
const sink = await startSmtpSink();
const { db } = await import("~/platform/db.server");
const { runSchedulerPass, sendNow } = await import("~/modules/sending/sending.server");
const { skipNextIssue, undoSkip } = await import("~/modules/folders/skip.server");
const { occurrenceKey } = await import("~/modules/folders/schedule.server");

/** 00:01 BST on Sunday 25 October, and 00:01 GMT on Sunday 1 November. */
const SKIPPED = new Date("2026-10-24T23:01:00Z");
const MOVED = new Date("2026-11-01T00:01:00Z");
const minuteAfter = (date: Date) => new Date(date.getTime() + 60_000);

function sundayFolder(recipient: string) {
  const sender = createUser(db, { timeZone: "Europe/London" });
  const folder = createFolder(db, sender.id, {
    frequency: "weekly",
    dayOfWeek: 7,
    recipients: [{ name: "Mum", email: recipient }],
    nextSendAt: SKIPPED,
  });
  createItem(db, folder.id);
  return { sender, folder };
}

const folderNow = (id: number) => db.select().from(folders).where(eq(folders.id, id)).get()!;
const ledgersOf = (id: number) =>
  db.select().from(sendLedger).where(eq(sendLedger.folderId, id)).all();

test("the skipped Sunday sends nothing; the next Sunday sends once, at 00:01 GMT", async () => {
  const { sender, folder } = sundayFolder("skip-mum@example.com");
  skipNextIssue(sender.id, folder.id, new Date("2026-10-23T12:00:00Z"));

  await runSchedulerPass(minuteAfter(SKIPPED));
  expect(ledgersOf(folder.id)).toHaveLength(0);
  expect(sink.to("skip-mum@example.com")).toHaveLength(0);

  await runSchedulerPass(new Date("2026-10-31T23:59:00Z"));
  expect(ledgersOf(folder.id)).toHaveLength(0);
  await runSchedulerPass(MOVED);
  await runSchedulerPass(minuteAfter(MOVED));
  expect(sink.to("skip-mum@example.com")).toHaveLength(1);
  expect(ledgersOf(folder.id).map((ledger) => ledger.occurrenceKey)).toEqual([
    occurrenceKey(MOVED),
  ]);
  expect(folderNow(folder.id).nextSendAt!.toISOString()).toBe("2026-11-08T00:01:00.000Z");
});

test("undone, the skipped Sunday sends as it would have, once", async () => {
  const { sender, folder } = sundayFolder("undo-mum@example.com");
  skipNextIssue(sender.id, folder.id, new Date("2026-10-23T12:00:00Z"));
  undoSkip(sender.id, folder.id, new Date("2026-10-24T10:00:00Z"));
  await runSchedulerPass(SKIPPED);
  await runSchedulerPass(minuteAfter(SKIPPED));
  expect(sink.to("undo-mum@example.com")).toHaveLength(1);
  expect(ledgersOf(folder.id).map((ledger) => ledger.occurrenceKey)).toEqual([
    occurrenceKey(SKIPPED),
  ]);
});

test("an occurrence already due cannot be skipped: the scheduler sends it", async () => {
  const { sender, folder } = sundayFolder("due-mum@example.com");
  expect(() => skipNextIssue(sender.id, folder.id, minuteAfter(SKIPPED))).toThrow(/being sent now/);
  await runSchedulerPass(minuteAfter(SKIPPED));
  expect(sink.to("due-mum@example.com")).toHaveLength(1);
});

test("a Send Now during a skip keeps the skip", async () => {
  const { sender, folder } = sundayFolder("now-mum@example.com");
  skipNextIssue(sender.id, folder.id, new Date("2026-10-23T12:00:00Z"));
  await sendNow(sender.id, folder.id, new Date("2026-10-23T13:00:00Z"));
  expect(sink.to("now-mum@example.com")).toHaveLength(1);
  expect(folderNow(folder.id).nextSendAt!.toISOString()).toBe(MOVED.toISOString());
});
