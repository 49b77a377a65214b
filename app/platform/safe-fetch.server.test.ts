import http from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PREVIEW_USER_AGENT, SafeFetchError, safeFetch } from "./safe-fetch.server";

const options = {
  maxBytes: 1024,
  timeoutMs: 2000,
  maxRedirects: 3,
  accept: "text/html",
};

/** Resolves every name to `address`, as a hostile DNS record would. */
const resolvesTo =
  (address: string, family: 4 | 6): LookupFunction =>
  (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    } else {
      callback(null, address, family);
    }
  };

describe("safeFetch refuses addresses inside the network by default", () => {
  test.each([
    ["loopback IPv4", "http://127.0.0.1/"],
    ["loopback IPv4, another", "http://127.5.6.7/"],
    ["private 10/8", "http://10.0.0.1/"],
    ["private 172.16/12", "http://172.16.0.1/"],
    ["private 192.168/16", "http://192.168.1.1/"],
    ["link-local IPv4 (cloud metadata)", "http://169.254.169.254/latest/meta-data/"],
    ["unspecified IPv4", "http://0.0.0.0/"],
    ["loopback IPv6", "http://[::1]/"],
    ["link-local IPv6", "http://[fe80::1]/"],
    ["unique-local IPv6", "http://[fd00::1]/"],
    ["IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]/"],
    ["localhost (resolves to loopback)", "http://localhost/"],
  ])("%s: %s", async (_label, address) => {
    await expect(safeFetch(address, options)).rejects.toThrowError(/not allowed/);
    await expect(safeFetch(address, options)).rejects.toMatchObject({ permanent: true });
  });

  test.each([
    ["a public name resolving to loopback IPv4", "127.0.0.1", 4],
    ["a public name resolving to a private IPv4", "10.1.2.3", 4],
    ["a public name resolving to link-local IPv4", "169.254.169.254", 4],
    ["a public name resolving to loopback IPv6", "::1", 6],
    ["a public name resolving to link-local IPv6", "fe80::1", 6],
  ] as const)("%s (%s)", async (_label, address, family) => {
    await expect(
      safeFetch("http://127.0.0.1.nip.io.example/", {
        ...options,
        lookup: resolvesTo(address, family),
      }),
    ).rejects.toThrowError(/not allowed/);
  });

  test("only http and https, on their own ports, without credentials", async () => {
    await expect(safeFetch("file:///etc/passwd", options)).rejects.toThrowError(SafeFetchError);
    await expect(safeFetch("ftp://example.com/", options)).rejects.toThrowError(/Only http/);
    await expect(safeFetch("http://example.com:6379/", options)).rejects.toThrowError(/ports/);
    await expect(safeFetch("http://user:pw@example.com/", options)).rejects.toThrowError(
      /credentials/,
    );
  });
});

describe("safeFetch against a loopback page server (the test-only setting)", () => {
  let server: http.Server;
  let origin: string;
  const seen: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      seen.push(request.headers);
      const path = request.url ?? "/";
      if (path === "/page") {
        response.setHeader("Set-Cookie", "tracker=1");
        response.end("<html><title>Hi</title></html>");
      } else if (path.startsWith("/hop/")) {
        const left = Number(path.slice(5));
        response.writeHead(302, { Location: left > 0 ? `/hop/${left - 1}` : "/page" });
        response.end();
      } else if (path === "/to-private") {
        response.writeHead(302, { Location: "http://10.0.0.1/" });
        response.end();
      } else if (path === "/to-metadata-name") {
        response.writeHead(301, { Location: "http://localhost:80/" });
        response.end();
      } else if (path === "/big") {
        response.end("x".repeat(5000));
      } else if (path === "/slow") {
        setTimeout(() => response.end("late"), 5000).unref();
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const loopback = { ...options, allowLoopback: true };

  test("without the setting, the same server is refused", async () => {
    await expect(safeFetch(`${origin}/page`, options)).rejects.toThrowError(SafeFetchError);
  });

  test("fetches a page with our user agent and sends back no cookie", async () => {
    const result = await safeFetch(`${origin}/hop/1`, loopback);
    expect(result.body.toString()).toContain("<title>Hi</title>");
    expect(result.url).toBe(`${origin}/page`);
    const last = seen.at(-1);
    expect(last?.["user-agent"]).toBe(PREVIEW_USER_AGENT);
    expect(last?.cookie).toBeUndefined();
  });

  test("checks every redirect hop again", async () => {
    await expect(safeFetch(`${origin}/to-private`, loopback)).rejects.toThrowError(/not allowed/);
    await expect(safeFetch(`${origin}/to-private`, loopback)).rejects.toThrowError(/10\.0\.0\.1/);
  });

  test("stops after the redirect limit", async () => {
    await expect(safeFetch(`${origin}/hop/2`, loopback)).resolves.toBeTruthy();
    await expect(safeFetch(`${origin}/hop/3`, loopback)).rejects.toThrowError(/redirects/);
  });

  test("stops reading past the size limit", async () => {
    await expect(safeFetch(`${origin}/big`, loopback)).rejects.toThrowError(/Larger than/);
  });

  test("gives up after the time limit", async () => {
    await expect(safeFetch(`${origin}/slow`, { ...loopback, timeoutMs: 300 })).rejects.toThrowError(
      SafeFetchError,
    );
  });
});
