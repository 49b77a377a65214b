/**
 * remix-serve does not hand the socket's address to Remix. Behind Fly's proxy
 * the client's address arrives in Fly-Client-IP, which the proxy always sets
 * itself; anywhere else the address is unknown rather than guessed from
 * headers a client could forge.
 */
export function clientIp(request: Request): string | null {
  return request.headers.get("fly-client-ip")?.trim() || null;
}

export function userAgent(request: Request): string | null {
  return request.headers.get("user-agent")?.slice(0, 512) ?? null;
}

/** The path (and query) of a request, for `redirectTo` after login. */
export function pathOf(request: Request) {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}
