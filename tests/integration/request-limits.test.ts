import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bodyLimitFor, FORM_BODY_LIMIT_BYTES } from "#server/body-limit";
import {
  requireBuild,
  type Server,
  startServer,
  stopServer,
  waitForHealth,
} from "../support/app-server";
import { freePort } from "../support/free-port";

/**
 * The production server (server/index.ts) on loopback, attacked from outside
 * with no account: a 40 MB form post must be refused with 413 before it is
 * read, without growing the server's memory, and the request log must not
 * print the tokens of the links we e-mail. Needs `npm run build` first.
 */
const MB = 1024 * 1024;
const ATTACK_BYTES = 40 * MB;
const ALLOWED_GROWTH_BYTES = 20 * MB;

let server: Server;
let base: string;
let dataDir: string;

function rssBytes(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kib * 1024;
}

/**
 * POSTs `total` bytes of form data to `pathname`, as fast as the socket takes
 * them, with a Content-Length or chunked; resolves with the status as soon as
 * an answer arrives, however much of the body was sent by then.
 */
function postLargeBody(pathname: string, total: number, chunked: boolean) {
  return new Promise<{ status: number; sentBytes: number }>((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = {
      "Content-Type": "application/x-www-form-urlencoded",
    };
    if (!chunked) headers["Content-Length"] = total;
    const request = http.request(`${base}${pathname}`, { method: "POST", headers });
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sentBytes = 0;
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      response.resume();
      resolve({ status: response.statusCode ?? 0, sentBytes });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sentBytes < total) {
        sentBytes += chunk.byteLength;
        if (!request.write(chunk)) return void request.once("drain", pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
}

/** The highest resident memory of the server while `work` runs, sampled every 10 ms. */
async function peakRssDuring<T>(work: () => Promise<T>) {
  const pid = server.child.pid!;
  let peak = rssBytes(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 10);
  try {
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 200));
    peak = Math.max(peak, rssBytes(pid));
    return { result, peak };
  } finally {
    clearInterval(sampler);
  }
}

beforeAll(async () => {
  requireBuild();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "thoughtfully-limits-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = startServer(port, dataDir, { SESSION_SECRET: "s".repeat(40) });
  await waitForHealth(base, server);
  // Warm up the routes under test so their first render is not counted as growth.
  await fetch(`${base}/login`);
  await fetch(`${base}/unsubscribe`);
}, 60_000);

afterAll(async () => {
  if (server) await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("bounded request bodies", () => {
  test("only uploads and webhooks keep their own limits; every other post is bounded", () => {
    expect(bodyLimitFor("POST", "/login")).toBe(FORM_BODY_LIMIT_BYTES);
    expect(bodyLimitFor("POST", "/login.data")).toBe(FORM_BODY_LIMIT_BYTES);
    expect(bodyLimitFor("POST", "/unsubscribe")).toBe(FORM_BODY_LIMIT_BYTES);
    expect(bodyLimitFor("POST", "/folders/3/send")).toBe(FORM_BODY_LIMIT_BYTES);
    expect(bodyLimitFor("POST", "/uploads-elsewhere")).toBe(FORM_BODY_LIMIT_BYTES);
    expect(bodyLimitFor("GET", "/login")).toBeNull();
    expect(bodyLimitFor("POST", "/upload")).toBeNull();
    expect(bodyLimitFor("POST", "/folders/3/add/photo")).toBeNull();
    expect(bodyLimitFor("POST", "/folders/3/add/file.data")).toBeNull();
    expect(bodyLimitFor("POST", "/folders/3/items/9/edit")).toBeNull();
    expect(bodyLimitFor("POST", "/webhooks/stripe")).toBeNull();
    expect(bodyLimitFor("POST", "/api/v1/folders/3/upload")).toBeNull();
    expect(bodyLimitFor("POST", "/api/v1/items/9/add-files")).toBeNull();
    expect(bodyLimitFor("POST", "/api/v1/folders")).toBe(FORM_BODY_LIMIT_BYTES);
  });

  test.each([
    ["/login", false],
    ["/login", true],
    ["/unsubscribe", false],
  ])(
    "a 40 MB post to %s (chunked: %s) gets 413 at once, memory stays flat",
    async (pathname, chunked) => {
      const idle = rssBytes(server.child.pid!);
      const started = performance.now();
      const { result, peak } = await peakRssDuring(() =>
        postLargeBody(pathname, ATTACK_BYTES, chunked),
      );
      expect(result.status).toBe(413);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(peak - idle).toBeLessThan(ALLOWED_GROWTH_BYTES);
    },
  );

  test("a small form still reaches the app (refused there for its missing CSRF token)", async () => {
    const response = await fetch(`${base}/login`, {
      method: "POST",
      body: new URLSearchParams({ email: "someone@example.com", password: "x" }),
    });
    expect(response.status).toBe(403);
  });
});

describe("the request log", () => {
  test("prints paths without query strings, so no e-mailed token is logged", async () => {
    const token = "SECRET-TOKEN-0123456789abcdef";
    for (const pathname of ["/reset-password", "/verify-email", "/unsubscribe", "/resubscribe"]) {
      await fetch(`${base}${pathname}?token=${token}`).then((response) => response.arrayBuffer());
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.stdout()).toContain("GET /reset-password?… ");
    expect(server.stdout()).not.toContain(token);
    expect(server.stderr()).not.toContain(token);
  });
});
