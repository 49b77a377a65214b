import { describe, expect, test } from "vitest";
import { countedStream } from "#server/body-limit";
import { readBodyText } from "./request-body.server";

/** A POST whose body arrives in `chunks`, without a Content-Length (as a chunked upload). */
function streamedRequest(chunks: string[]) {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Request("http://localhost/webhooks/stripe", {
    method: "POST",
    body,
    duplex: "half",
  } as RequestInit);
}

describe("readBodyText", () => {
  test("returns a body within the limit, multi-byte characters intact", async () => {
    const request = new Request("http://localhost/", { method: "POST", body: "héllo wörld" });
    expect(await readBodyText(request, 100)).toBe("héllo wörld");
  });

  test("refuses a declared length over the limit without reading the body", async () => {
    // The body is short; only the header says it is long, so the header alone decides.
    const request = new Request("http://localhost/", {
      method: "POST",
      body: "short",
      headers: { "content-length": "11" },
    });
    expect(await readBodyText(request, 10)).toBeNull();
  });

  test("refuses a streamed body once it passes the limit", async () => {
    expect(await readBodyText(streamedRequest(["12345", "67890", "1"]), 10)).toBeNull();
    expect(await readBodyText(streamedRequest(["12345", "67890"]), 10)).toBe("1234567890");
  });

  test("reads a body the server ended past the route's limit as too long, not as a failure", async () => {
    const counted = countedStream(streamedRequest(["12345", "67890", "1"]).body!, 10);
    const request = new Request("http://localhost/", {
      method: "POST",
      body: counted,
      duplex: "half",
    } as RequestInit);
    expect(await readBodyText(request, 20)).toBeNull();
  });

  test("reads an empty body as empty text", async () => {
    expect(await readBodyText(new Request("http://localhost/", { method: "POST" }), 10)).toBe("");
  });
});
