import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import nodemailer, { type SendMailOptions } from "nodemailer";
import { expect, test } from "vitest";
import { PRODUCTION_HEAP_FLAGS } from "#tests/support/production-heap";
import { LIMITS } from "~/modules/plans/limits";
import { parseReservationBytes } from "./message-parse.server";
import { measureMessage } from "./message-shape.server";

const MB = 1024 * 1024;
const TEXT = LIMITS.saveByEmail.maxTextBytes;
// The file's own data directory (tests/setup/isolated-environment.ts).
const directory = path.dirname(process.env.DATABASE_PATH!);

/** Messages of each shape that costs memory to parse, the text ones near the text bound once encoded. */
const MESSAGES: Record<string, SendMailOptions> = {
  attachments: {
    text: "Photos from Sunday",
    attachments: [
      { filename: "menu.pdf", content: Buffer.alloc(5 * MB, 1), contentType: "application/pdf" },
      ...[2, 3, 4].map((index) => ({
        filename: `${index}.jpg`,
        content: Buffer.alloc(MB, index),
        contentType: "image/jpeg",
      })),
    ],
  },
  html: {
    html: '<p>Soup <a href="https://example.com/soup">here</a>, and more words to read.</p>\n'.repeat(
      (0.7 * TEXT) / 80,
    ),
  },
  links: {
    text: Array.from(
      { length: (0.9 * TEXT) / 30 },
      (_, index) => `https://example.com/${index}\n`,
    ).join(""),
  },
  quoted: { text: "> an old reply, quoted, https://example.com/old\n".repeat((0.9 * TEXT) / 50) },
  accented: {
    text: "Crème brûlée ☕ https://example.com/crème and words\n".repeat((0.6 * TEXT) / 60),
  },
};

async function messageFile(name: string, message: SendMailOptions) {
  const built = await nodemailer
    .createTransport({ streamTransport: true, buffer: true })
    .sendMail({ from: "ada@family.test", to: "folder@in.example.test", subject: name, ...message });
  const file = path.join(directory, `${name}.eml`);
  fs.writeFileSync(file, built.message as Buffer);
  return file;
}

test("a message with all the text it may have fits the budget of the production heap", () => {
  const most = parseReservationBytes({ parts: 1, textBytes: LIMITS.saveByEmail.maxTextBytes });
  // A quarter of the 304 MiB heap that --max-old-space-size=256 gives (app/platform/memory-budget.server.ts).
  expect(most).toBeLessThanOrEqual(76 * MB);
});

test("the reservation covers what parsing each shape of message holds, measured with the production heap", async () => {
  const files = await Promise.all(
    Object.entries(MESSAGES).map(([name, message]) => messageFile(name, message)),
  );
  const estimates: Record<string, number> = {};
  for (const [index, name] of Object.keys(MESSAGES).entries()) {
    const shape = await measureMessage(fs.createReadStream(files[index]!));
    if (typeof shape === "string") throw new Error(`${name}: ${shape}`);
    estimates[name] = parseReservationBytes(shape);
  }
  // tests/support/parse-memory-probe.ts, in a process with the heap fly.toml gives the server.
  const output = execFileSync(
    process.execPath,
    [
      ...PRODUCTION_HEAP_FLAGS,
      "--expose-gc",
      "--import",
      "tsx",
      "tests/support/parse-memory-probe.ts",
      ...files,
    ],
    { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
  );
  const peaks = JSON.parse(output.trim().split("\n").at(-1)!) as number[];
  const measured = Object.fromEntries(
    Object.keys(MESSAGES).map((name, index) => [name, peaks[index]]),
  );
  for (const name of Object.keys(MESSAGES)) {
    expect(measured[name], name).toBeLessThanOrEqual(estimates[name]!);
  }
}, 120_000);
