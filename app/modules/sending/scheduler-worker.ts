import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parentPort } from "node:worker_threads";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { closeMailer } from "~/platform/mailer.server";
import type { SchedulerThreadReply, SchedulerThreadRequest } from "./scheduler-thread.server";
import { runSchedulerPass } from "./sending.server";

/**
 * The scheduler's thread (started by scheduler-thread.server.ts): runs a pass
 * when asked and says how it went; on "stop", waits for its background
 * e-mails, closes its mail pool and its database connection and lets the
 * thread end.
 */
const port = parentPort;
if (!port) throw new Error("scheduler-worker.ts runs as a worker thread only");

/**
 * Pages before mail: when the web's thread and this one both want the CPU, the
 * web's wins, and a pass takes what is left
 * (docs/decisions/0251-the-pass-yields-the-cpu-to-pages.md). Linux keeps a nice
 * value per thread, set through the thread's own id; elsewhere the thread keeps
 * the process's priority.
 */
const SCHEDULER_THREAD_NICE = 10;
if (fs.existsSync("/proc/thread-self")) {
  const threadId = Number(path.basename(fs.readlinkSync("/proc/thread-self")));
  os.setPriority(threadId, SCHEDULER_THREAD_NICE);
}

port.on("message", async (request: SchedulerThreadRequest) => {
  if (request.type === "stop") {
    // A pass may have left e-mails going (a paused sender's notice to the admins).
    await waitForBackgroundWork();
    await closeMailer();
    if (db.$client.open) db.$client.close();
    port.close();
    return;
  }
  let reply: SchedulerThreadReply;
  try {
    reply = { type: "passed", result: await runSchedulerPass() };
  } catch (error) {
    reply = { type: "failed", message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
