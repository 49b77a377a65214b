import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { PassResult } from "./sending.server";

/**
 * The scheduler's passes run on a thread of their own inside the server
 * process. At 00:01 a pass renders and sends for minutes; on the web's thread
 * every page view would queue behind its work, and the pass could use only
 * that one core. The thread has its own database connection (SQLite's locks
 * order its writes with the web's), mail pool and acceptance turns; Send Now
 * stays on the web's thread. docs/decisions/0078-the-schedulers-own-thread.md.
 */
export type SchedulerThreadRequest = { type: "pass" } | { type: "stop" };
export type SchedulerThreadReply =
  | { type: "passed"; result: PassResult }
  | { type: "failed"; message: string };

/**
 * scheduler-worker.ts as `npm run build` compiles it (scripts/build-server.ts), found from the
 * working directory as the migrations are; unit tests of the thread run after the build too.
 */
const WORKER_FILE = path.resolve("build/server/scheduler-worker.js");
/** Its heap: a pass holds four sends at a time, whatever the number of folders (bench:scale). */
const WORKER_HEAP_MB = 128;

let worker: Worker | undefined;
let waiting: { resolve: (result: PassResult) => void; reject: (error: Error) => void } | undefined;

function settle(outcome: { result: PassResult } | { error: Error }) {
  const current = waiting;
  waiting = undefined;
  if ("result" in outcome) current?.resolve(outcome.result);
  else current?.reject(outcome.error);
}

function startWorker() {
  if (!fs.existsSync(WORKER_FILE)) {
    throw new Error(`${WORKER_FILE} is missing: run \`npm run build\` first.`);
  }
  const started = new Worker(WORKER_FILE, {
    // The server's own flags (a profiler, a preload) stay its own.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  started.on("message", (reply: SchedulerThreadReply) => {
    if (reply.type === "passed") settle({ result: reply.result });
    else settle({ error: new Error(reply.message) });
  });
  started.on("error", (error) => settle({ error }));
  started.on("exit", (code) => {
    if (worker === started) worker = undefined;
    settle({ error: new Error(`The scheduler's thread stopped (exit code ${code})`) });
  });
  return started;
}

/** One pass on the scheduler's thread (started on first use). Passes do not overlap: croner's `protect`. */
export function runSchedulerPassOnItsThread(): Promise<PassResult> {
  if (waiting) return Promise.reject(new Error("A pass is already running"));
  return new Promise((resolve, reject) => {
    waiting = { resolve, reject };
    threadReady().then(
      (thread) => thread.postMessage({ type: "pass" } satisfies SchedulerThreadRequest),
      (error: Error) => settle({ error }),
    );
  });
}

async function threadReady() {
  if (worker) return worker;
  // The process's libuv thread pool is made on its first use, and its threads keep the
  // priority of the thread that made them: made here, at the web's, never by the
  // scheduler's thread once it has lowered its own (scheduler-worker.ts).
  await fs.promises.stat(process.cwd());
  worker ??= startWorker();
  return worker;
}

/** At shutdown, once no pass runs: the thread closes its connections and ends. */
export async function stopSchedulerThread() {
  const thread = worker;
  if (!thread) return;
  worker = undefined;
  const ended = new Promise((resolve) => thread.once("exit", resolve));
  thread.postMessage({ type: "stop" } satisfies SchedulerThreadRequest);
  await ended;
}
