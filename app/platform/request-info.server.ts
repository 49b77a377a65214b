import { clientAddressFrom } from "./client-address";
import { env } from "./env.server";
import { requestContext } from "./request-context.server";

/**
 * The client's address, in one place for every limit and log: the socket's
 * peer (app/platform/request-context.server.ts); on Fly, whose proxy is always the peer,
 * the Fly-Client-IP it sets; behind a proxy named in TRUSTED_PROXY, the
 * address that proxy appended to X-Forwarded-For. Headers from anyone else
 * are ignored: a client could write them. Null outside the server (unit tests).
 */
export function clientIp(request: Request): string | null {
  const peer = requestContext()?.peerAddress ?? null;
  if (!peer && !env.FLY_APP_NAME) return null;
  return clientIpOf(request, peer);
}

/** clientIp for a request whose peer is known: the server's, before the request context exists. */
export function clientIpOf(request: Request, peer: string | null): string | null {
  return clientAddressFrom(peer, request.headers, {
    flyAppName: env.FLY_APP_NAME,
    trustedProxies: env.TRUSTED_PROXY,
  });
}

/** 127.0.0.0/8 and ::1: a request from this machine itself. */
export function isLoopback(address: string | null) {
  return address !== null && (address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(address));
}

export function userAgent(request: Request): string | null {
  return request.headers.get("user-agent")?.slice(0, 512) ?? null;
}

/** The path (and query) of a request, for `redirectTo` after login. */
export function pathOf(request: Request) {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}
