import type { UploadHandler } from "@remix-run/node";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { hostileText } from "#tests/support/hostile-text";
import {
  FormFieldTooLargeError,
  MultipartRefusedError,
  parseMultipartForm,
  readDisposition,
  readTextOnlyMultipartForm,
} from "./multipart.server";
import { MULTIPART_TEXT_MAX_BYTES } from "./route-body-limit";

const BOUNDARY = "----formboundary7MA4YWxkTrZu0gW";
const LIMITS = { maxParts: 8, tooManyPartsMessage: "Too many parts" };

/** A form with a CSRF-like field and one file part whose Content-Disposition tail is `disposition`. */
function formBody(disposition: Uint8Array, content = "file content") {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\ntoken\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; `,
    ),
    disposition,
    Buffer.from(`\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** A POST whose body arrives `chunkSize` bytes at a time, so boundaries and headers split anywhere. */
function multipartRequest(body: Buffer, chunkSize = body.length) {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < body.length; at += chunkSize) {
        controller.enqueue(new Uint8Array(body.subarray(at, at + chunkSize)));
      }
      controller.close();
    },
  });
  return new Request("http://localhost/upload", {
    method: "POST",
    headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: stream,
    duplex: "half",
  } as RequestInit);
}

/** Parses `request`, keeping each file part's name and filename and its text. */
async function readFiles(request: Request) {
  const files: { name: string; filename: string | undefined; text: string }[] = [];
  const handler: UploadHandler = async ({ name, filename, data }) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of data) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    if (filename === undefined) return text;
    files.push({ name, filename, text });
    return "stored";
  };
  const formData = await parseMultipartForm(request, handler, LIMITS);
  return { formData, files };
}

/** How a browser writes a file name in the header (HTML's multipart/form-data encoding). */
function asBrowserSends(filename: string) {
  return Buffer.from(
    `filename="${filename.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22")}"`,
  );
}

describe("multipart file names", () => {
  test.each([
    ["a;b.jpg", "a;b.jpg"],
    ["a=b.jpg", "a=b.jpg"],
    ["Tom's photo.jpg", "Tom's photo.jpg"],
    ['x; name="y".jpg', "x; name=%22y%22.jpg"],
    ["folder/inner\\name.png", "name.png"],
    ["50%.jpg", "50%.jpg"],
  ])("%j is read as it was sent", async (sent, read) => {
    const { formData, files } = await readFiles(multipartRequest(formBody(asBrowserSends(sent))));
    expect(files).toEqual([{ name: "files", filename: read, text: "file content" }]);
    expect(formData.get("csrf")).toBe("token");
    expect(formData.get("files")).toBe("stored");
  });

  test("an RFC 5987 filename* wins over the plain one; Latin-1 bytes are read, not thrown on", async () => {
    const extended = Buffer.from(`filename="euro.jpg"; filename*=UTF-8''%E2%82%AC%20rate.jpg`);
    expect((await readFiles(multipartRequest(formBody(extended)))).files[0]?.filename).toBe(
      "€ rate.jpg",
    );
    const latin1 = Buffer.from([...Buffer.from('filename="caf'), 0xe9, ...Buffer.from('.jpg"')]);
    expect((await readFiles(multipartRequest(formBody(latin1)))).files[0]?.filename).toBe(
      "caf\uFFFD.jpg",
    );
  });

  test("any name a browser can send is read as sent, however the body is split", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(hostileText, fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })),
        fc.integer({ min: 1, max: 97 }),
        async (sent, chunkSize) => {
          const body = formBody(asBrowserSends(sent), "x".repeat(300));
          const { files } = await readFiles(multipartRequest(body, chunkSize));
          const expected = new TextDecoder()
            .decode(Buffer.from(sent))
            .replace(/\r/g, "%0D")
            .replace(/\n/g, "%0A")
            .replace(/"/g, "%22")
            .split(/[/\\]/)
            .pop();
          expect(files).toEqual([{ name: "files", filename: expected, text: "x".repeat(300) }]);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a header of any bytes is read or refused with a clear message, never thrown on otherwise", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 80 }), async (bytes) => {
        try {
          await readFiles(multipartRequest(formBody(bytes)));
        } catch (error) {
          expect(error).toBeInstanceOf(MultipartRefusedError);
          expect((error as Error).message).toBe("The upload could not be read. Please try again.");
        }
      }),
      { numRuns: 300 },
    );
  });

  test("more parts than the reader allows are refused with its message", async () => {
    const parts = Array.from(
      { length: 9 },
      (_, index) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${index}"\r\n\r\nv\r\n`,
    ).join("");
    const request = multipartRequest(Buffer.from(`${parts}--${BOUNDARY}--\r\n`));
    await expect(readFiles(request)).rejects.toThrow(new MultipartRefusedError("Too many parts"));
  });
});

describe("readDisposition", () => {
  test.each([
    ['form-data; name="files"; filename="a;b=c.jpg"', { name: "files", filename: "a;b=c.jpg" }],
    ["form-data; name=files; filename=plain.txt", { name: "files", filename: "plain.txt" }],
    ['form-data; name="q\\"uote"', { name: 'q"uote', filename: undefined }],
    ['form-data; name="files"; filename="ends\\"', { name: "files", filename: "ends\\" }],
    ['form-data; name="open', { name: "open", filename: undefined }],
    ["form-data; ;; =; name", { name: undefined, filename: undefined }],
    [
      "form-data; filename*=UTF-8''%ZZ; filename=\"fallback\"",
      { name: undefined, filename: "fallback" },
    ],
    ["form-data; filename*=iso-8859-1'en'caf%E9", { name: undefined, filename: "café" }],
  ])("%s", (value, expected) => {
    expect(readDisposition(value)).toEqual(expected);
  });
});

describe("a form that is not an upload, posted as multipart", () => {
  /** A multipart body of text fields (and a file part where `file` names its field). */
  function textForm(fields: [string, string][], file?: string) {
    const parts = fields.map(
      ([name, value]) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    if (file) {
      parts.push(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file}"; filename="a.jpg"\r\n\r\nxyz\r\n`,
      );
    }
    return Buffer.from(`${parts.join("")}--${BOUNDARY}--\r\n`);
  }

  test("is read as its text fields, all of them at most a plain form's size, or refused naming the field that passed it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(MULTIPART_TEXT_MAX_BYTES / 2), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 512, max: 64 * 1024 }),
        async (sizes, chunkSize) => {
          const fields = sizes.map((size, index): [string, string] => [
            `field${index}`,
            "a".repeat(size),
          ]);
          const request = multipartRequest(textForm(fields), chunkSize);
          const runningTotals = sizes.map((_, index) =>
            sizes.slice(0, index + 1).reduce((sum, size) => sum + size, 0),
          );
          const passing = runningTotals.findIndex((total) => total > MULTIPART_TEXT_MAX_BYTES);
          if (passing === -1) {
            const form = await readTextOnlyMultipartForm(request);
            expect([...form.entries()]).toEqual(fields);
          } else {
            const error = await readTextOnlyMultipartForm(request).catch((caught) => caught);
            expect(error).toBeInstanceOf(FormFieldTooLargeError);
            expect(error.field).toBe(`field${passing}`);
            expect(error.message).toContain(`"field${passing}"`);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  test("refuses a file part before reading it", async () => {
    const error = await readTextOnlyMultipartForm(
      multipartRequest(textForm([["title", "Hello"]], "files")),
    ).catch((caught) => caught);
    expect(error).toBeInstanceOf(FormFieldTooLargeError);
    expect(error.message).toBe('The field "files" holds a file, which this form does not take.');
  });
});
