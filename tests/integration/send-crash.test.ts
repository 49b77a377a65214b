import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import { db } from "#db/client.server";
import { contentItems, folders, users } from "#db/schema";
import { SmtpSink } from "../support/smtp-sink";

/**
 * Real processes against one database file: `npm run send:due` (one
 * scheduler pass) killed mid-send and started again, and two of them started
 * together. Every recipient must end with exactly one copy.
 */
const sink = new SmtpSink();
let smtpUrl = "";

beforeAll(async () => {
  smtpUrl = await sink.start();
});
afterAll(async () => {
  await sink.stop();
});

function sendDue(): ChildProcess & { done: Promise<number | null> } {
  // tsx as a loader of this very process: the tsx command would run the script
  // in a child process, which SIGKILL to the parent would leave running.
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/send-due.ts"], {
    env: { ...process.env, SMTP_URL: smtpUrl, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const done = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      if (code !== 0 && code !== null) console.error(output);
      resolve(code);
    }),
  );
  return Object.assign(child, { done });
}

let counter = 0;
function seedDueFolder(recipients: string[]) {
  counter += 1;
  const user = db
    .insert(users)
    .values({ email: `crash-sender${counter}@example.com`, emailVerified: true, firstName: "Sam" })
    .returning()
    .get();
  const folder = db
    .insert(folders)
    .values({
      userId: user.id,
      name: `Crash ${counter}`,
      recipients: recipients.map((email) => ({ name: email.split("@")[0]!, email })),
      nextSendAt: new Date(Date.now() - 60_000),
    })
    .returning()
    .get();
  db.insert(contentItems)
    .values({ folderId: folder.id, type: "musing", title: "Hello", note: "A note" })
    .run();
  return folder;
}

async function waitFor(condition: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test("a send killed mid-way finishes after a restart with exactly one copy each", async () => {
  const recipients = [1, 2, 3, 4, 5].map((n) => `kill${n}@example.com`);
  seedDueFolder(recipients);
  sink.stallAfter = sink.messages.length + 2;

  const first = sendDue();
  await waitFor(() => sink.messages.length >= sink.stallAfter, 20_000);
  // The third message is now stuck waiting for the server's answer.
  await new Promise((resolve) => setTimeout(resolve, 300));
  first.kill("SIGKILL");
  await first.done;
  expect(recipients.filter((email) => sink.to(email).length === 1)).toHaveLength(2);

  sink.stallAfter = Number.POSITIVE_INFINITY;
  const second = sendDue();
  expect(await second.done).toBe(0);
  for (const email of recipients) expect(sink.to(email), email).toHaveLength(1);
}, 60_000);

test("two schedulers started together send each message once", async () => {
  const recipients = ["two-a@example.com", "two-b@example.com", "two-c@example.com"];
  seedDueFolder(recipients.slice(0, 2));
  seedDueFolder(recipients.slice(2));
  const [a, b] = [sendDue(), sendDue()];
  expect(await a.done).toBe(0);
  expect(await b.done).toBe(0);
  for (const email of recipients) expect(sink.to(email), email).toHaveLength(1);
}, 60_000);
