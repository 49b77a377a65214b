import crypto from "node:crypto";
import { expect, test } from "vitest";
import { startSmtpSink } from "../support/integration";

/** With DKIM_* set, every message is signed, List-Unsubscribe-Post included (RFC 8058). */
const sink = await startSmtpSink();
const { privateKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
process.env.DKIM_DOMAIN = "thoughtfully.example";
process.env.DKIM_SELECTOR = "mail2026";
process.env.DKIM_PRIVATE_KEY = privateKey
  .export({ type: "pkcs8", format: "pem" })
  .toString()
  .replaceAll("\n", "\\n");

test("signs the unsubscribe headers", async () => {
  const { sendEmail, closeMailer } = await import("~/platform/mailer.server");
  await sendEmail({
    to: "grace@example.net",
    subject: "Signed",
    html: "<p>Hello</p>",
    text: "Hello",
    headers: {
      "List-Unsubscribe": "<https://thoughtfully.example/unsubscribe?x=1>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
  });
  await closeMailer();
  const [message] = sink.to("grace@example.net");
  const signature = (message?.headerLines ?? [])
    .find((line) => line.key === "dkim-signature")
    ?.line.replace(/\r?\n\s+/g, " ");
  expect(signature).toBeDefined();
  expect(signature).toMatch(/d=thoughtfully\.example/);
  expect(signature).toMatch(/s=mail2026/);
  const signed = /;\s*h=([^;]+)/.exec(signature!)?.[1]?.toLowerCase().replace(/\s+/g, "") ?? "";
  expect(signed.split(":")).toEqual(
    expect.arrayContaining(["from", "subject", "list-unsubscribe", "list-unsubscribe-post"]),
  );
});
