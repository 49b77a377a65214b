import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, test, vi } from "vitest";
import { droppedRequestCounts } from "~/platform/dropped-requests.server";
import { leaveDroppedRequestsToTheLog, logRequests } from "./request-log";
import type { ExpressRequest } from "./router-url";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A server whose every request is logged and reads its body whole before answering 200. */
async function readingServer() {
  const server = http.createServer((request, response) => {
    Object.assign(request, {
      protocol: "http",
      hostname: "127.0.0.1",
      originalUrl: request.url,
    });
    logRequests(request as ExpressRequest, response);
    request.on("data", () => {});
    request.on("end", () => response.end("ok"));
    request.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Posts the head of a body, waits until the server asked for it (100 Continue), then goes away. */
async function postAndGoAway(port: number, target: string) {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const askedForBody = new Promise((resolve) => socket.once("data", resolve));
  socket.write(
    `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
  );
  await askedForBody;
  socket.end("a".repeat(10));
  socket.destroy();
}

describe("logRequests", () => {
  test("a request whose client went away is one line, without a status, and counted", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => lines.push(line));
    const before = droppedRequestCounts()["went away"];
    const { server, port } = await readingServer();
    try {
      await postAndGoAway(port, "/login");
      await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0));
      await fetch(`http://127.0.0.1:${port}/after`);
      await vi.waitFor(() => expect(lines.length).toBe(2));
    } finally {
      server.close();
    }
    expect(lines[0]).toMatch(/^POST \/login - - - [\d.]+ ms \(client went away\)$/);
    expect(lines[1]).toMatch(/^GET \/after 200 - - [\d.]+ ms$/);
    expect(droppedRequestCounts()["went away"]).toBe(before + 1);
  });

  test("a refusal is counted by its status, or by the gate's word; an answer is not", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const before = droppedRequestCounts();
    const server = http.createServer((request, response) => {
      Object.assign(request, { protocol: "http", hostname: "x", originalUrl: request.url });
      const status = Number(request.url?.slice(1));
      logRequests(request as ExpressRequest, response, status === 403 ? "cross-site" : undefined);
      response.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    for (const status of [200, 403, 413, 503]) await fetch(`http://127.0.0.1:${port}/${status}`);
    server.close();
    const after = droppedRequestCounts();
    expect(after["cross-site"] - before["cross-site"]).toBe(1);
    expect(after["too large"] - before["too large"]).toBe(1);
    expect(after.unavailable - before.unavailable).toBe(1);
  });
});

describe("leaveDroppedRequestsToTheLog", () => {
  const aborted = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
  const requestOn = (destroyed: boolean) =>
    ({ socket: { destroyed } }) as unknown as IncomingMessage;
  const response = { destroyed: false } as ServerResponse;

  test("the error of a client that went away ends there", () => {
    const next = vi.fn();
    leaveDroppedRequestsToTheLog(aborted, requestOn(true), response, next);
    leaveDroppedRequestsToTheLog(
      new Error("wrapped", { cause: aborted }),
      requestOn(true),
      response,
      next,
    );
    expect(next).not.toHaveBeenCalled();
  });

  test("any other error, or that one on an open connection, goes on to be logged with its stack", () => {
    const next = vi.fn();
    const bug = new TypeError("Cannot read properties of undefined");
    leaveDroppedRequestsToTheLog(bug, requestOn(true), response, next);
    leaveDroppedRequestsToTheLog(aborted, requestOn(false), response, next);
    expect(next.mock.calls).toEqual([[bug], [aborted]]);
  });
});
