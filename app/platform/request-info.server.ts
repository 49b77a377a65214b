import { env } from "./env.server";
import { requestContext } from "./request-context.server";

/** "::ffff:127.0.0.1" (an IPv4 peer on a dual-stack socket) as "127.0.0.1". */
function plainAddress(address: string) {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/**
 * The client's address, in one place for every limit and log: the socket's
 * peer (app/platform/request-context.server.ts); on Fly, whose proxy is always the peer,
 * the Fly-Client-IP it sets; behind a proxy named in TRUSTED_PROXY, the
 * address that proxy appended to X-Forwarded-For. Headers from anyone else
 * are ignored: a client could write them. Null outside the server (unit tests).
 */
export function clientIp(request: Request): string | null {
  const peer = requestContext()?.peerAddress;
  if (env.FLY_APP_NAME) return request.headers.get("fly-client-ip")?.trim() || null;
  if (!peer) return null;
  const address = plainAddress(peer);
  if (!env.TRUSTED_PROXY.includes(address)) return address;
  const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
  return forwarded ? plainAddress(forwarded) : address;
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
