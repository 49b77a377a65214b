import fs from "node:fs";
import fc from "fast-check";
import { expect, test } from "vitest";
import { spooledBytes } from "~/platform/spool.server";
import { readWebhookMail, removeWebhookMail } from "./webhook-mail.server";

/** A provider's post whose body arrives in the given pieces. */
function post(contentType: string, body: Buffer, cuts: number[] = []) {
  const at = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  const pieces = [0, ...at, body.length].slice(1).map((end, index, ends) => {
    const start = index === 0 ? 0 : ends[index - 1]!;
    return body.subarray(start, end);
  });
  return new Request("http://app.test/webhooks/save-by-email", {
    method: "POST",
    headers: { "Content-Type": contentType },
    body: new ReadableStream({
      start(controller) {
        for (const piece of pieces) if (piece.length > 0) controller.enqueue(piece);
        controller.close();
      },
    }),
    duplex: "half",
  } as RequestInit);
}

async function rawOf(request: Request) {
  const mail = await readWebhookMail(request);
  if (typeof mail === "string") throw new Error(mail);
  const bytes = Buffer.isBuffer(mail.raw) ? mail.raw : fs.readFileSync(mail.raw.path);
  await removeWebhookMail(mail);
  return { bytes, recipients: mail.recipients };
}

test("Postmark's RawEmail, whatever its characters and however the JSON is cut, is spooled exactly", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      async (message, cuts) => {
        const json = Buffer.from(
          JSON.stringify({
            From: "ada@family.test",
            Headers: [{ Name: "RawEmail", Value: "not this one" }],
            RawEmail: message,
            OriginalRecipient: "family.x7@in.thoughtfully.test",
          }),
        );
        const { bytes, recipients } = await rawOf(post("application/json", json, cuts));
        expect(bytes.equals(Buffer.from(message))).toBe(true);
        expect(recipients).toEqual(["family.x7@in.thoughtfully.test"]);
      },
    ),
    { numRuns: 60 },
  );
  expect(spooledBytes()).toBe(0);
});

test("a multipart form's message field is spooled, the fields it needs read, the rest read past", async () => {
  const message = `Subject: Soup\r\n\r\n${"Lentils. ".repeat(20_000)}`;
  const boundary = "provider-boundary";
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const body = Buffer.from(
    field("headers", "Subject: Soup\r\n".repeat(5_000)) +
      field("envelope", JSON.stringify({ to: ["family.x7@in.thoughtfully.test"] })) +
      field("email", message) +
      `--${boundary}--\r\n`,
  );
  const { bytes, recipients } = await rawOf(
    post(`multipart/form-data; boundary=${boundary}`, body, [1000, 70_000, 100_001]),
  );
  expect(bytes.toString()).toBe(message);
  expect(recipients).toEqual(["family.x7@in.thoughtfully.test"]);
  expect(spooledBytes()).toBe(0);
});

test("JSON that cannot be read, and a form without a message, are no message: nothing stays spooled", async () => {
  for (const request of [
    post("application/json", Buffer.from('{"RawEmail": "Subject: cut off')),
    post(
      "multipart/form-data; boundary=b",
      Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n--b--\r\n'),
    ),
  ]) {
    const { bytes } = await rawOf(request);
    expect(bytes).toHaveLength(0);
  }
  expect(spooledBytes()).toBe(0);
});
