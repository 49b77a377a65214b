import { describe, expect, test } from "vitest";
import { runInRequestContext } from "./request-context.server";
import { clientIp, isLoopback } from "./request-info.server";

function requestWith(headers: Record<string, string>) {
  return new Request("http://localhost:3000/login", { headers });
}

describe("clientIp", () => {
  test("is the socket's peer; headers a client can write are ignored", () => {
    const forged = requestWith({ "X-Forwarded-For": "127.0.0.1", "Fly-Client-IP": "127.0.0.1" });
    expect(runInRequestContext({ peerAddress: "203.0.113.5" }, () => clientIp(forged))).toBe(
      "203.0.113.5",
    );
  });

  test("reads an IPv4 peer on a dual-stack socket as plain IPv4", () => {
    const request = requestWith({});
    expect(runInRequestContext({ peerAddress: "::ffff:127.0.0.1" }, () => clientIp(request))).toBe(
      "127.0.0.1",
    );
  });

  test("is unknown outside the server", () => {
    expect(clientIp(requestWith({ "Fly-Client-IP": "203.0.113.5" }))).toBeNull();
  });
});

describe("isLoopback", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["10.0.0.1", false],
    ["::ffff:127.0.0.1", false],
    ["1270.0.0.1", false],
    [null, false],
  ])("%s: %s", (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});
