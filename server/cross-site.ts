import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerBuild } from "@remix-run/node";
import {
  CROSS_SITE_REFUSAL,
  type CrossSitePosts,
  comesFromAnotherSite,
  isUnsafeMethod,
} from "~/platform/cross-site";
import { createRouteFinder, type RouteTable } from "./body-limit";
import { logRequests } from "./request-log";
import { type ExpressRequest, routerUrl } from "./router-url";

/**
 * The one cross-site gate (docs/decisions/0239-one-cross-site-gate.md), in
 * front of every request and before its body is read: a POST (or any method
 * but GET, HEAD and OPTIONS) that another site's page sent, by its
 * `Sec-Fetch-Site` or `Origin` however spelled (app/platform/cross-site.ts),
 * gets a 403 and a plain page saying why, unless the route that would take
 * it declares `export const crossSitePosts` (found as the body limit finds
 * it, server/body-limit.ts).
 *
 * Every unsafe request it lets through goes on without its `Origin`: the gate
 * has judged it. Remix's own check (@remix-run/server-runtime's
 * throwIfPotentialCSRFAttack, on page and `.data` posts) compares the
 * Origin's host with `X-Forwarded-Host` or `Host` and answers a bare 500 when
 * they differ, so left in place it would fail the posts this gate takes on
 * purpose (a mail app's `Origin: null`, a mail provider's origin, the share
 * sheet's `Origin: null`, our own origin behind a proxy that rewrites Host).
 * Nothing behind the gate needs the header: the app's own checks
 * (app/platform/cross-site.server.ts) still read `Sec-Fetch-Site`, and a
 * declared route's authority is its own proof (a signed link, a signature, a
 * bearer token), never the session cookie.
 */
type RouteWithDeclaration = { module: { crossSitePosts?: CrossSitePosts } };
type Next = (error?: unknown) => void;

/** The origin the request was sent to, as the browser names it: scheme, Host (its port too). */
function addressedOrigin(request: ExpressRequest): string | null {
  try {
    return new URL(`${request.protocol}://${request.headers.host}`).origin;
  } catch {
    return null;
  }
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === "string" ? value : null;
}

const REFUSAL_PAGE = `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${CROSS_SITE_REFUSAL.title} · Thoughtfully</title>
<h1>${CROSS_SITE_REFUSAL.title}</h1>
<p>${CROSS_SITE_REFUSAL.text}</p>
<p><a href="/">${CROSS_SITE_REFUSAL.link}</a></p>
</html>
`;

/** 403 with the page for a browser, the same words as plain text for anything else; the body is left unread. */
function refuseCrossSite(request: IncomingMessage, response: ServerResponse) {
  const forBrowser = header(request, "accept")?.includes("text/html") ?? false;
  response.writeHead(403, {
    "Content-Type": `${forBrowser ? "text/html" : "text/plain"}; charset=utf-8`,
    "Cache-Control": "no-store",
  });
  response.end(
    forBrowser ? REFUSAL_PAGE : `${CROSS_SITE_REFUSAL.title}: ${CROSS_SITE_REFUSAL.text}\n`,
  );
}

/** The gate for the app of `build`; its origin is the one the app itself uses (APP_URL's). */
export function crossSiteGate(build: RouteTable & Pick<ServerBuild, "entry">) {
  const routeOf = createRouteFinder(build);
  // The app's own value (its APP_URL), from the one instance its modules read.
  const { appOrigin } = build.entry.module as typeof build.entry.module &
    Pick<typeof import("~/entry.server"), "appOrigin">;
  return (request: ExpressRequest, response: ServerResponse, next: Next) => {
    if (!isUnsafeMethod(request.method)) return next();
    const url = routerUrl(request);
    const route = url ? (routeOf(url) as RouteWithDeclaration | null) : null;
    const takesCrossSite = typeof route?.module.crossSitePosts === "string";
    const source = {
      origin: header(request, "origin"),
      fetchSite: header(request, "sec-fetch-site"),
    };
    const ours = [appOrigin, addressedOrigin(request)].filter((origin) => origin !== null);
    if (!takesCrossSite && comesFromAnotherSite(source, ours)) {
      logRequests(request, response, "cross-site");
      return refuseCrossSite(request, response);
    }
    delete request.headers.origin;
    next();
  };
}
