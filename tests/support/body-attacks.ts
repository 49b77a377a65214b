import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { pathToFileURL } from "node:url";
import { createCookie } from "@remix-run/node";
import type { AppDatabase } from "#db/connection";
import { sessions } from "#db/schema";
import { repoRoot, serverBuild } from "./app-server";

/**
 * What the attack tests on the production server share
 * (tests/integration/request-limits.test.ts, tests/integration/flood.test.ts):
 * large bodies posted as fast as the socket takes them, the routes of the
 * build that read a body, a signed-in session made directly, and the
 * server's resident memory as the kernel counts it.
 */

/** The resident memory of process `pid` (VmRSS), in bytes; null once it has gone. */
export function rssBytes(pid: number): number | null {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? null : Number(kib) * 1024;
}

/**
 * Samples `pid`'s resident memory every `everyMs` until `stop()`, which gives
 * the highest seen and each sample (milliseconds since the start, bytes).
 */
export function sampleRss(pid: number, everyMs: number) {
  const started = performance.now();
  let peak = rssBytes(pid) ?? 0;
  const samples: [number, number][] = [];
  const sample = () => {
    const rss = rssBytes(pid);
    if (rss === null) return;
    samples.push([performance.now() - started, rss]);
    peak = Math.max(peak, rss);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peak, samples };
    },
  };
}

/** The bytes a large body is made of: `head`, then `total - head - tail` filler bytes, then `tail`. */
export type BodyShape = { contentType: string; head?: Buffer; tail?: Buffer };

/** A form whose last field, `huge=aaaa…`, takes up the rest of the body, after `fields` (a CSRF token, say). */
export function urlencodedBody(fields: Record<string, string> = {}, huge = "title"): BodyShape {
  const head = `${new URLSearchParams({ ...fields, [huge]: "" })}`;
  return { contentType: "application/x-www-form-urlencoded", head: Buffer.from(head) };
}

/**
 * A multipart form: `fields` first (a CSRF token, say), then one part that
 * takes up the rest of the body, a text field or a file (with a `filename`).
 */
export function multipartBody(
  fields: Record<string, string>,
  huge: { name: string; filename?: string; contentType?: string },
): BodyShape {
  const boundary = `----flood${crypto.randomBytes(8).toString("hex")}`;
  const disposition = huge.filename
    ? `form-data; name="${huge.name}"; filename="${huge.filename}"\r\nContent-Type: ${huge.contentType ?? "application/pdf"}`
    : `form-data; name="${huge.name}"`;
  const head = [
    ...Object.entries(fields).map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    ),
    `--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`,
  ].join("");
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head: Buffer.from(head),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

export type Post = {
  /** The request target as sent, spelled as the test wants it. */
  target: string;
  total: number;
  chunked?: boolean;
  headers?: http.OutgoingHttpHeaders;
  /** What the body is; a urlencoded form of filler by default. */
  body?: BodyShape;
  /** Called with the size of each piece of the body as it is handed to the socket. */
  onSent?: (bytes: number) => void;
  /** Gives up (status 0) when this aborts before the answer has ended. */
  signal?: AbortSignal;
  /** The local address it is sent from (any of 127.0.0.0/8): which client the server sees. */
  from?: string;
};

export type PostAnswer = {
  /** The answer's status, 0 when the connection ended without one. */
  status: number;
  headers: http.IncomingHttpHeaders;
  sentBytes: number;
  /** The first 4 KB of the answer's body (enough for a route's error). */
  text: string;
  /** Why there was no answer (status 0): the socket's error, or "given up". */
  error?: string;
};

/**
 * POSTs `total` bytes to `target` on `base`, as fast as the socket takes
 * them, with a Content-Length or chunked; resolves with the answer as soon as
 * it arrives, however much of the body was sent by then (a filler chunk is
 * reused, so a large body costs this process nothing).
 */
export function postLargeBody(
  base: string,
  {
    target,
    total,
    chunked = false,
    headers = {},
    body = urlencodedBody(),
    onSent,
    signal,
    from,
  }: Post,
) {
  return new Promise<PostAnswer>((resolve) => {
    const head = body.head ?? Buffer.alloc(0);
    const tail = body.tail ?? Buffer.alloc(0);
    const allHeaders: http.OutgoingHttpHeaders = { "Content-Type": body.contentType, ...headers };
    if (!chunked) allHeaders["Content-Length"] = total;
    const { hostname, port } = new URL(base);
    const request = http.request({
      hostname,
      port,
      path: target,
      method: "POST",
      headers: allHeaders,
      ...(from ? { localAddress: from } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, "a");
    const fillerEnd = total - tail.byteLength;
    let sentBytes = 0;
    let answered = false;
    request.on("response", (response) => {
      answered = true;
      let text = "";
      response.on("data", (part: Buffer) => {
        if (text.length < 4096) text += part.toString("utf8");
      });
      const done = () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, sentBytes, text });
      response.once("end", () => {
        done();
        // Nothing more to send or read: let the server see the end now.
        request.destroy();
      });
      response.once("close", done);
    });
    // A connection cut before any answer counts as no answer (status 0), not as a test error.
    request.on("error", (error) => {
      if (!answered) resolve({ status: 0, headers: {}, sentBytes, text: "", error: error.message });
    });
    if (signal) {
      const giveUp = () => {
        resolve({ status: 0, headers: {}, sentBytes, text: "", error: "given up" });
        request.destroy();
      };
      if (signal.aborted) giveUp();
      signal.addEventListener("abort", giveUp, { once: true });
      request.once("close", () => signal.removeEventListener("abort", giveUp));
    }
    const write = (bytes: Buffer) => {
      sentBytes += bytes.byteLength;
      onSent?.(bytes.byteLength);
      return request.write(bytes);
    };
    const pump = () => {
      if (sentBytes === 0 && !write(head)) return void request.once("drain", pump);
      while (!answered && sentBytes < fillerEnd) {
        const room = fillerEnd - sentBytes;
        const next = room < chunk.byteLength ? chunk.subarray(0, room) : chunk;
        if (!write(next)) return void request.once("drain", pump);
      }
      if (answered) return;
      sentBytes += tail.byteLength;
      onSent?.(tail.byteLength);
      request.end(tail);
    };
    pump();
  });
}

export type ActionRoute = { id: string; path: string; index: boolean };

/**
 * Every route of the build that has an action, with its full path: read from
 * the build itself (a child process imports it, as the server does, with the
 * server's settings in `env`), so a route added later is attacked too.
 */
export function routesWithActions(env: Record<string, string>): ActionRoute[] {
  const script = `
    const build = await import(${JSON.stringify(pathToFileURL(serverBuild).href)});
    const routes = Object.values(build.routes);
    const full = (route) => {
      const parent = route.parentId ? full(build.routes[route.parentId]) : "";
      return [parent, route.path ?? ""].filter(Boolean).join("/");
    };
    const withActions = routes.filter((route) => route.module.action).map((route) => ({
      id: route.id, path: "/" + full(route), index: Boolean(route.index),
    }));
    console.log("ROUTES " + JSON.stringify(withActions));
    process.exit(0);`;
  const output = execFileSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "--eval", script],
    {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, NODE_ENV: "production", SCHEDULER: "off", ...env },
    },
  );
  const line = output.split("\n").find((text) => text.startsWith("ROUTES "));
  return JSON.parse(line!.slice("ROUTES ".length));
}

/**
 * A concrete path for a route pattern: each parameter filled from `params`
 * (by name) or with "1", a splat given a segment.
 */
export function concretePath(pattern: string, params: Record<string, string | number> = {}) {
  return (
    pattern
      .replace(/:([^/]+)/g, (_, name: string) => String(params[name] ?? "1"))
      .replace(/\*$/, "x")
      .replace(/\/+$/, "") || "/"
  );
}

/**
 * Signed in as a login would leave it: a session row for `userId` in
 * `database` and the `Cookie` header that carries it, signed with `secret`
 * (the server's SESSION_SECRET).
 */
export async function signedInSessionCookie(database: AppDatabase, userId: number, secret: string) {
  const token = crypto.randomBytes(32).toString("base64url");
  database
    .insert(sessions)
    .values({
      sid: crypto.createHash("sha256").update(token).digest("hex"),
      userId,
      expire: new Date(Date.now() + 86_400_000),
    })
    .run();
  const cookie = createCookie("thoughtfully_session", { secrets: [secret] });
  return (await cookie.serialize(token)).split(";")[0]!;
}

/** The CSRF token a page's forms carry (the hidden `csrf` field). */
export function csrfTokenIn(html: string) {
  const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error("The page carries no CSRF token");
  return token;
}
