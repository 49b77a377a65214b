import http from "node:http";
import module, { createRequire } from "node:module";
import path from "node:path";
import url from "node:url";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { clientShareKey } from "~/platform/client-address";
import { type ClientBody, clientShares } from "~/platform/client-shares.server";
import { carriesSecret, secretReferrerPolicy } from "~/platform/secret-paths";
import { completeSecurityHeaders } from "~/platform/security-headers.server";
import {
  bodyClock,
  bodyMeter,
  boundBody,
  closeAfterAnswer,
  createBodyPolicies,
  declaredTooLarge,
  hasBody,
  refuseBusy,
  refuseTooLarge,
  refuseTooSlow,
} from "./body-limit";
import { crossSiteGate } from "./cross-site";
import { leaveDroppedRequestsToTheLog, logRequests } from "./request-log";
import { type ExpressRequest, routerUrl } from "./router-url";

/**
 * The production server: what `remix-serve` does (compression, static files,
 * the Remix request handler), plus the things every request must pass
 * through and remix-serve has no hook for: a bounded body whose bytes are
 * counted against the process's memory budget (docs/memory-budget.md), the socket's peer
 * address for the app (app/platform/request-context.server.ts), and a request log without
 * query strings. docs/decisions/0053-one-server-entry.md.
 *
 * express, compression and source-map-support are remix-serve's own
 * dependencies, loaded through it so their versions are the ones it ships.
 */
// V8's compiled code for every module loaded from here on is kept on disk
// (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE), so a restart
// compiles nothing it compiled before (docs/performance.md, "bench:cold-start").
// Node 20, which bench/node-versions.sh compares with, has no such cache.
module.enableCompileCache?.();

const serveRequire = createRequire(
  createRequire(import.meta.url).resolve("@remix-run/serve/package.json"),
);
const express = serveRequire("express");
const compression = serveRequire("compression");
// The adapter's request and response converters (its package index exports only the whole handler).
const { createRemixRequest, sendRemixResponse } = serveRequire("@remix-run/express/dist/server.js");
serveRequire("source-map-support").install();
// Compression's own hook for "just before the headers go out".
const onHeaders = createRequire(serveRequire.resolve("compression"))("on-headers");

const buildPath = path.resolve(process.argv[2] ?? "build/index.js");
const appBuild: ServerBuild = await import(url.pathToFileURL(buildPath).href);
// The app's own store for the request context: one instance, the one its modules read.
const { runInRequestContext, healthResponse, clientIpOf, answeringDatabaseBusy } = appBuild.entry
  .module as typeof appBuild.entry.module &
  Pick<
    typeof import("~/entry.server"),
    "runInRequestContext" | "healthResponse" | "clientIpOf" | "answeringDatabaseBusy"
  >;
// Every route's loader and action answers a busy database one way: a 503 with
// Retry-After, what was typed kept (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
const build = answeringDatabaseBusy(appBuild);
// No installGlobals: Node 24's own fetch, Request, Response, FormData and File are what
// single fetch needs (installGlobals would swap in the undici package's, loaded for it).
// Error details reach the browser only in development: the browser tests' NODE_ENV=test
// server answers errors as production does (docs/decisions/0103-loopback-previews-never-in-production.md).
const handleRemixRequest = createRequestHandler(
  build,
  process.env.NODE_ENV === "development" ? "development" : "production",
);
const bodyPolicyOf = createBodyPolicies(build);

const app = express();
app.disable("x-powered-by");
// Every answer, whoever wrote it (Remix, the static files, a refusal, an
// error), gets its security headers completed as it goes out.
// docs/decisions/0112-security-headers-on-every-answer.md
app.use((req: ExpressRequest, res: NodeResponse, next: Next) => {
  const address = routerUrl(req);
  const addressCarriesSecret = address === null || carriesSecret(address);
  const referrerPolicy = (address && secretReferrerPolicy(address)) ?? undefined;
  onHeaders(res, () => {
    completeSecurityHeaders(res, { addressCarriesSecret, secretReferrerPolicy: referrerPolicy });
    closeAfterAnswer(req, res);
  });
  next();
});
// Fly's health check is answered before compression, the static files' disk
// lookups and the body limit, so a flood of bodies and files queued ahead of it
// cannot make a healthy machine look dead (docs/decisions/0230-health-check-first.md).
app.get("/healthz", async (req: NodeRequest, res: NodeResponse, next: Next) => {
  logRequests(req, res);
  try {
    await sendRemixResponse(res, await healthResponse());
  } catch (error) {
    next(error);
  }
});
app.use(compression());
app.use(
  build.publicPath,
  express.static(build.assetsBuildDirectory, { immutable: true, maxAge: "1y" }),
);
app.use(express.static("public", { maxAge: "1h" }));

type Next = (error?: unknown) => void;
/** A request without a body holds nothing and takes no client's place. */
const NO_BODY: ClientBody = {
  reservation: { bytes: 0, take: async () => false, release() {} },
  finish() {},
};
type NodeRequest = ExpressRequest;
type NodeResponse = import("node:http").ServerResponse;

// Another site's post is refused before its body is read (docs/decisions/0239-one-cross-site-gate.md).
app.use(crossSiteGate(build));
app.all("*", async (req: NodeRequest, res: NodeResponse, next: Next) => {
  logRequests(req, res);
  try {
    // The limit is decided on the very URL Remix routes (its own parse, Host header included).
    const remixRequest: Request = createRemixRequest(req, res);
    const policy = bodyPolicyOf(remixRequest);
    if (declaredTooLarge(remixRequest, policy)) return refuseTooLarge(req, res, policy);
    const peerAddress = req.socket.remoteAddress ?? null;
    // A body is held only within its client's fair share (docs/memory-budget.md).
    const body = hasBody(remixRequest)
      ? clientShares.admit(clientShareKey(clientIpOf(remixRequest, peerAddress)))
      : NO_BODY;
    if (!body) return refuseBusy(req, res);
    req.once("end", body.finish);
    const meter = bodyMeter(policy, body.reservation);
    const answered = new AbortController();
    res.once("close", () => {
      answered.abort();
      meter.release();
    });
    const verdict = await boundBody(remixRequest, policy, answered.signal, meter, {
      clock: bodyClock(policy.limitBytes),
      onTooSlow: () => refuseTooSlow(req, res),
    });
    if (verdict.kind === "too-large") return refuseTooLarge(req, res, policy);
    if (verdict.kind === "busy") return refuseBusy(req, res);
    if (verdict.kind === "too-slow") return refuseTooSlow(req, res);
    const request = verdict.request;
    const response = await runInRequestContext({ peerAddress }, () => handleRemixRequest(request));
    // A streamed body that came too slowly was answered 408 already.
    if (res.headersSent) return await response.body?.cancel();
    await sendRemixResponse(res, response);
  } catch (error) {
    next(error);
  }
});
// A request whose client went away is its log line alone, not a stack trace (decision 0239).
app.use(leaveDroppedRequestsToTheLog);

const port = Number(process.env.PORT) || 3000;
// Loopback unless HOST says otherwise: a laptop's `npm start` is not on the LAN
// (the Dockerfile sets HOST=0.0.0.0, since the container's port is its only door).
const host = process.env.HOST || "127.0.0.1";
// Node accepts one connection per listening socket each turn of its loop, so under a
// flood of connections a new one (Fly's health check, a person signing in) waits its
// turn behind them all. Two sockets on the port (SO_REUSEPORT, which only Linux
// offers) halve that queue (docs/decisions/0233-two-listening-sockets.md).
const listeningSockets = process.platform === "linux" ? 2 : 1;
const servers = Array.from({ length: listeningSockets }, () => {
  const server = http.createServer(app);
  // An idle connection outlives Fly's proxy's (60 s), so the proxy, not this
  // server, closes it: it never sends a request into a socket closing under it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // A body's time is its route's (BODY_PACE in server/body-limit.ts), not one 300 s for every request.
  server.requestTimeout = 0;
  return server;
});
const listen = (server: http.Server, reusePort: boolean) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host, reusePort }, () => {
      // From here on an error is the server's to report, not this promise's to swallow.
      server.off("error", reject);
      resolve();
    });
  });
if (servers.length > 1) {
  // The port must be free, as for one socket: SO_REUSEPORT would otherwise let a
  // second copy of the server started by mistake share it silently with the first.
  const probe = http.createServer();
  await listen(probe, false);
  await new Promise((resolve) => probe.close(resolve));
}
await Promise.all(servers.map((server) => listen(server, servers.length > 1)));
console.log(`[server] http://${host.includes(":") ? `[${host}]` : host}:${port}`);

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    for (const server of servers) server.close((error?: Error) => error && console.error(error));
  });
}
