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
