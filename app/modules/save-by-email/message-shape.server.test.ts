import { Readable } from "node:stream";
import nodemailer, { type SendMailOptions } from "nodemailer";
import { describe, expect, test } from "vitest";
import { LIMITS } from "~/modules/plans/limits";
import { measureMessage, readHeaders } from "./message-shape.server";

async function raw(message: SendMailOptions) {
  const built = await nodemailer
    .createTransport({ streamTransport: true, buffer: true })
    .sendMail({ from: "Ada <ada@family.test>", to: "folder@in.example.test", ...message });
  return built.message as Buffer;
}

/** The bytes in small chunks, as a file or a socket hands them over. */
const streamOf = (bytes: Buffer) =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, index) =>
      bytes.subarray(index * 4096, (index + 1) * 4096),
    ),
  );

describe("readHeaders", () => {
  test("reads the From and the recipients, and stops before the body", async () => {
    const bytes = await raw({
      subject: "Soup",
      text: "x".repeat(100_000),
      headers: { "Delivered-To": "other@in.example.test" },
    });
    const source = streamOf(bytes);
    const headers = await readHeaders(source);
    if (typeof headers === "string") throw new Error(headers);
    expect(headers.get("from")).toMatchObject({ value: [{ address: "ada@family.test" }] });
    expect(headers.get("delivered-to")).toMatchObject({
      value: [{ address: "other@in.example.test" }],
    });
    expect(source.destroyed).toBe(true);
  });
});

describe("measureMessage", () => {
  test("counts the parts and the text's bytes, not the attachments'", async () => {
    const bytes = await raw({
      text: "a".repeat(1000),
      html: `<p>${"b".repeat(2000)}</p>`,
      attachments: [{ filename: "menu.pdf", content: Buffer.alloc(50_000, 1) }],
    });
    const shape = await measureMessage(streamOf(bytes));
    if (typeof shape === "string") throw new Error(shape);
    // multipart/mixed holding multipart/alternative (text and HTML) and the PDF.
    expect(shape.parts).toBe(5);
    expect(shape.textBytes).toBeGreaterThan(3000);
    expect(shape.textBytes).toBeLessThan(3200);
  });

  test("too many parts, too much text, or a header section over the bound is told as such", async () => {
    const many = await raw({
      text: "hi",
      attachments: Array.from({ length: LIMITS.saveByEmail.maxParts }, (_, index) => ({
        filename: `${index}.txt`,
        content: "x",
      })),
    });
    expect(await measureMessage(streamOf(many))).toBe("too many parts");
    const long = await raw({ text: "word ".repeat(LIMITS.saveByEmail.maxTextBytes / 4) });
    expect(await measureMessage(streamOf(long))).toBe("text too long");
    const padded = await raw({
      text: "hi",
      attachments: [
        {
          filename: "a.txt",
          content: "x",
          headers: { "X-Padding": "a".repeat(LIMITS.saveByEmail.maxHeaderBytes + 1) },
        },
      ],
    });
    expect(await measureMessage(streamOf(padded))).toBe("header section too large");
    const paddedTop = await raw({
      text: "hi",
      headers: { "X-Padding": "a".repeat(LIMITS.saveByEmail.maxHeaderBytes + 1) },
    });
    expect(await measureMessage(streamOf(paddedTop))).toBe("header section too large");
  });
});
