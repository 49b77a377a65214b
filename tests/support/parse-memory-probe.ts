import fs from "node:fs";
import { planSave } from "~/modules/save-by-email/forwarded-message.server";
import { parseMessage, removeAttachments } from "~/modules/save-by-email/message-parse.server";

/**
 * Run by app/modules/save-by-email/message-parse.server.test.ts in a process
 * of its own, with the production heap (fly.toml's --max-old-space-size) and
 * --expose-gc: parses each message file named by its arguments as the
 * receiver does, from the file to its plan, and prints for each the most
 * memory (V8's heap and buffers) held at once above what was held before:
 * sampled after a full collection every 50 ms while the parse streams and
 * once it is done, then after the plan, which runs in one go, with the
 * plan's garbage.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("Run with --expose-gc");
// Loaded before counting, as in a server that has parsed a message before.
await import("mailparser");

const held = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

const peaks: number[] = [];
for (const file of process.argv.slice(2)) {
  gc();
  const before = held();
  let peak = before;
  const sampler = setInterval(() => {
    gc();
    peak = Math.max(peak, held());
  }, 50);
  const parsed = await parseMessage(fs.createReadStream(file));
  clearInterval(sampler);
  gc();
  peak = Math.max(peak, held());
  const plan = planSave(parsed);
  peak = Math.max(peak, held());
  await removeAttachments(parsed);
  if (!plan.title) throw new Error(`${file} planned nothing`);
  peaks.push(peak - before);
}
console.log(JSON.stringify(peaks));
// The app's modules keep handles open (the database); the measure is taken.
process.exit(0);
