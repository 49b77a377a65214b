import http, { type ServerResponse } from "node:http";
import fc from "fast-check";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { requestLogLine } from "#server/request-log";
import type { ExpressRequest } from "#server/router-url";
import {
  startBuiltServer,
  startSmtpSink,
  thisFilesDataDir,
  waitUntil,
} from "../support/integration";
import { routeTable } from "../support/route-table";
import { spelledSecretAddress } from "../support/spelled-address";

/**
 * The production server (server/index.ts) on this test file's database: an
 * issue is really sent (through a real SMTP server on loopback) from this
 * process, then its recipient's web version and every route of the table are
 * fetched from the server, and its request log and error output are read.
 * Needs `remix build` first. docs/decisions/0111-secret-paths-never-logged.md,
 * docs/decisions/0112-security-headers-on-every-answer.md
 */
const sink = await startSmtpSink();
// This file's own data directory (tests/setup/isolated-environment.ts), shared with the server.
const server = await startBuiltServer({}, { dataDir: thisFilesDataDir() });
const base = server.base;
const issue = await sendIssue();
const webPath = issue.web;

/**
 * A verified sender's folder with a photo, sent to one recipient: the path of
 * their web version, the ids of what was sent and a cookie of the sender's session.
 */
async function sendIssue() {
  const [{ db }, schema, { sendNow }, { storage }, sessions] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("~/platform/storage.server"),
    import("~/modules/auth/session.server"),
  ]);
  const user = createUser(db);
  const folder = createFolder(db, user.id);
  const jpeg = await sharp({ create: { width: 20, height: 10, channels: 3, background: "#0a0" } })
    .jpeg()
    .toBuffer();
  const { key } = await storage.put(
    (async function* () {
      yield jpeg;
    })(),
  );
  const item = db
    .insert(schema.contentItems)
    .values({
      folderId: folder.id,
      type: "photo",
      title: "Our garden",
      filePaths: [key],
      thumbnailPaths: [""],
      fileNames: ["garden.jpg"],
      fileSizes: [jpeg.length],
      mimeTypes: ["image/jpeg"],
      addComment: true,
      commentText: "In bloom",
      sortOrder: 0,
    })
    .returning()
    .get();
  await sendNow(user.id, folder.id);
  const ledger = db.select().from(schema.sendLedger).get()!;
  const setCookie = await sessions.createSession(
    user.id,
    new Request("http://localhost/"),
    "password",
  );
  const html = String(sink.to("mum@example.com")[0]?.html);
  const web = /https?:\/\/[^/"]+(\/v\/[A-Za-z0-9_.-]+)/.exec(html)?.[1];
  if (!web) throw new Error("The message has no web-version link");
  const cookie = setCookie.split(";")[0]!;
  return { web, folderId: folder.id, itemId: item.id, issueId: ledger.id, fileKey: key, cookie };
}

describe("the web version", () => {
  test("is served like the app's pages: scripts only with its nonce, no framing and no Referer to other sites", async () => {
    const response = await fetch(`${base}${webPath}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain("Our garden");
    // docs/decisions/0146-web-version-as-a-page.md
    const policy = response.headers.get("content-security-policy") ?? "";
    const nonce = /script-src 'nonce-([^']+)' 'strict-dynamic'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    expect(policy).toContain("frame-ancestors 'none'");
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`))).toEqual([]);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    // Its hearts post to us, with our Origin: a Referer goes to our own origin only.
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
  });

  test("every address with a code in its path sends no Referer, the owner's file included", async () => {
    const code = webPath.split("/")[2]!;
    for (const [pathname, cookie] of [
      [`/u/${code}`, ""],
      [`/%55/${code}`, ""],
      [`/t/c/${code}`, ""],
      [`/files/${issue.fileKey}`, issue.cookie],
    ] as const) {
      const response = await fetch(`${base}${pathname}`, {
        redirect: "manual",
        headers: cookie ? { Cookie: cookie } : {},
      });
      await response.arrayBuffer();
      expect(response.headers.get("referrer-policy"), pathname).toBe("no-referrer");
    }
  });
});

/** Every route's path, its dynamic segments filled with the sent issue's own values. */
async function everyRoutePath() {
  const values: Record<string, string | number> = {
    code: webPath.split("/")[2]!,
    fileKey: issue.fileKey,
    folderId: issue.folderId,
    itemId: issue.itemId,
    issueId: issue.issueId,
    index: 0,
    type: "photo",
  };
  return (await routeTable()).map((route) =>
    route.path
      .replace(/:([^/]+)/g, (_, name: string) => String(values[name] ?? 1))
      .replace("*", "anything"),
  );
}

/** What is missing from the answer to a GET of each path, signed in with `cookie` if given. */
async function missingHeaders(paths: string[], cookie?: string) {
  const missing: string[] = [];
  for (const pathname of paths) {
    const response = await fetch(`${base}${pathname}`, {
      redirect: "manual",
      headers: cookie ? { Cookie: cookie } : {},
    });
    await response.arrayBuffer();
    const type = response.headers.get("content-type") ?? "";
    const canBePage = type === "" || /html|xml/i.test(type);
    const where = `${pathname} (${response.status}, ${type || "no type"})`;
    if (response.headers.get("x-content-type-options") !== "nosniff") {
      missing.push(`${where}: nosniff`);
    }
    if (canBePage && !response.headers.get("content-security-policy")) {
      missing.push(`${where}: policy`);
    }
    if (canBePage && response.headers.get("x-frame-options") !== "DENY") {
      missing.push(`${where}: X-Frame-Options`);
    }
  }
  return missing;
}

describe("every answer carries the security headers", () => {
  test("each route of the table, signed out and signed in: nosniff always, a policy on anything that can be a page", async () => {
    const paths = await everyRoutePath();
    expect(paths).toContain(webPath);
    expect(paths).toContain(`/files/${issue.fileKey}`);
    const extra = ["/favicon.svg", "/no-such-page", "/v/x/y/z", "/v/not-a-code"];
    expect(await missingHeaders([...paths, ...extra])).toEqual([]);
    const ownFolder = await fetch(`${base}/folders/${issue.folderId}`, {
      headers: { Cookie: issue.cookie },
      redirect: "manual",
    });
    expect(ownFolder.status).toBe(200);
    expect(await missingHeaders([...paths, ...extra], issue.cookie)).toEqual([]);
  });
});

/** A raw GET with chosen headers (fetch will not send a made-up Host). */
function rawRequest(method: string, target: string, headers: Record<string, string> = {}) {
  return new Promise<number>((resolve, reject) => {
    const request = http.request(`${base}${target}`, { method, headers });
    request.on("response", (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("the request log", () => {
  test("its line never holds a code, however the target and the Host header spell the address", () => {
    const response = { statusCode: 200, getHeader: () => undefined } as unknown as ServerResponse;
    fc.assert(
      fc.property(
        spelledSecretAddress,
        fc.boolean(),
        fc.constantFrom("GET", "POST", "HEAD"),
        ({ secret, prefix, target }, prefixInHost, method) => {
          // Express takes the Host header up to its port as `hostname`, and the adapter puts it before the target.
          const sent = prefixInHost ? target.slice(prefix.length) : target;
          const request = {
            method,
            protocol: "http",
            hostname: prefixInHost ? `localhost${prefix}` : "127.0.0.1",
            url: sent,
            originalUrl: sent,
          } as ExpressRequest;
          const line = requestLogLine(request, response, 1.5);
          expect(line).toMatch(new RegExp(`^${method} /\\S* 200 - - 1\\.500 ms$`));
          expect(line).not.toContain(secret);
          expect(decodeURIComponent(line)).not.toContain(secret);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("writes no recipient's code, however the address is spelled", async () => {
    const code = webPath.split("/")[2]!;
    const spellings = [
      webPath,
      `/%76/${code}`,
      `/V/${code}/`,
      `//v/${code}`,
      `/webhooks/../v/${code}`,
      `/x/%2e%2e/v/${code}`,
      `/v/${code}.data`,
      `/v/${code}?_data=routes%2Fv.%24code`,
      `/u/${code}`,
      `/t/o/${code}`,
      `/t/c/${code}?url=https%3A%2F%2Fexample.com`,
      `/files/${code}`,
    ];
    for (const target of spellings) await rawRequest("GET", target);
    // The router's own errors name the address: a POST to a route with no action.
    expect(await rawRequest("POST", webPath)).toBe(405);
    // A Host header that moves the path (without a port, which would cut it off): the router serves /v/CODE.
    expect(await rawRequest("GET", `/${code}`, { Host: "localhost/v" })).toBe(200);
    await waitUntil(
      () => server.stdout().includes("POST /v/[redacted] 405"),
      5_000,
      "The request log's lines",
    );
    expect(server.stdout()).toContain("GET /v/[redacted] 200");
    expect(server.stdout()).toContain("POST /v/[redacted] 405");
    expect(server.stdout()).not.toContain(code);
    expect(server.stderr()).not.toContain(code);
    expect(server.stdout()).not.toContain(code.slice(0, 24));
    expect(server.stderr()).not.toContain(code.slice(0, 24));
  });
});
