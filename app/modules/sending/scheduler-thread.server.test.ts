import fs from "node:fs";
import { isMainThread } from "node:worker_threads";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems, sendLedger } from "#db/schema";
import { SmtpSink } from "#tests/support/smtp-sink";
import { db } from "~/platform/db.server";
import { runSchedulerPassOnItsThread, stopSchedulerThread } from "./scheduler-thread.server";

const sink = new SmtpSink();

function seedDueFolder(recipients: string[]) {
  const user = createUser(db, { emailVerified: true });
  const folder = createFolder(db, user.id, {
    recipients: recipients.map((email) => ({ name: "Reader", email })),
    nextSendAt: new Date(Date.now() - 60_000),
  });
  db.insert(contentItems)
    .values({ folderId: folder.id, type: "musing", title: "Hello", note: "From the thread" })
    .run();
  return folder;
}

describe("the scheduler's thread", () => {
  beforeAll(async () => {
    // The thread takes the environment as it is when it starts.
    process.env.SMTP_URL = await sink.start();
  });

  afterAll(async () => {
    await stopSchedulerThread();
    await sink.stop();
    delete process.env.SMTP_URL;
  });

  test("runs a pass off this thread, on the same database, and reports what it sent", async () => {
    expect(isMainThread).toBe(true);
    const folders = [
      seedDueFolder(["one@example.com", "two@example.com"]),
      seedDueFolder(["three@example.com"]),
    ];
    expect(await runSchedulerPassOnItsThread()).toEqual({ opened: 2, messages: 3 });
    expect(sink.messages.flatMap((message) => message.envelopeTo).sort()).toEqual([
      "one@example.com",
      "three@example.com",
      "two@example.com",
    ]);
    for (const folder of folders) {
      const ledger = db.select().from(sendLedger).where(eq(sendLedger.folderId, folder.id)).get();
      expect(ledger?.status).toBe("sent");
    }
    // The thread stays for the next minute's pass; nothing is due now.
    expect(await runSchedulerPassOnItsThread()).toEqual({ opened: 0, messages: 0 });
  });

  test("yields the CPU to the web's thread: its own nice value is 10, the server's unchanged", async () => {
    // Field 19 of /proc/<pid>/task/<tid>/stat, counted after the command name's parenthesis.
    const niceOf = (tid: string) =>
      Number(
        fs
          .readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8")
          .split(") ")[1]!
          .split(" ")[16],
      );
    const serverNice = niceOf(String(process.pid));
    expect(serverNice, "the test runs at a priority above the thread's").toBeLessThan(10);
    await runSchedulerPassOnItsThread();
    const threads = fs.readdirSync(`/proc/${process.pid}/task`);
    expect(threads.filter((tid) => niceOf(tid) === 10)).toHaveLength(1);
    expect(niceOf(String(process.pid))).toBe(serverNice);
  });

  test("refuses a second pass while one runs: passes never overlap", async () => {
    const running = runSchedulerPassOnItsThread();
    await expect(runSchedulerPassOnItsThread()).rejects.toThrow("already running");
    await running;
  });

  test("a stopped thread is started again by the next pass", async () => {
    await stopSchedulerThread();
    seedDueFolder(["four@example.com"]);
    expect(await runSchedulerPassOnItsThread()).toEqual({ opened: 1, messages: 1 });
  });
});
