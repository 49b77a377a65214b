import net from "node:net";

/**
 * Who a request or an SMTP session comes from, in one place for the server
 * (its fair shares: docs/memory-budget.md, "A fair share per client"), the
 * SMTP receiver and the app's limits and logs (app/platform/request-info.server.ts).
 */

/** "::ffff:127.0.0.1" (an IPv4 peer on a dual-stack socket) as "127.0.0.1". */
export function plainAddress(address: string) {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

export type ProxySettings = { flyAppName: string | undefined; trustedProxies: readonly string[] };

/**
 * The client's address: on Fly, whose proxy is always the peer, the
 * Fly-Client-IP it sets; behind a proxy named in TRUSTED_PROXY, the address
 * that proxy appended to X-Forwarded-For; else the socket's peer. Headers from
 * anyone else are ignored: a client could write them.
 */
export function clientAddressFrom(
  peer: string | null,
  headers: { get(name: string): string | null },
  proxies: ProxySettings,
): string | null {
  if (proxies.flyAppName) return headers.get("fly-client-ip")?.trim() || null;
  if (!peer) return null;
  const address = plainAddress(peer);
  if (!proxies.trustedProxies.includes(address)) return address;
  const forwarded = headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
  return forwarded ? plainAddress(forwarded) : address;
}

/** An IPv6 address written out in full: eight groups of four hex digits, lower case. */
function expandedIpv6(address: string): string {
  // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two groups.
  const hexOnly = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [Number(a) * 256 + Number(b), Number(c) * 256 + Number(d)]
      .map((group) => group.toString(16))
      .join(":"),
  );
  const [head = "", tail] = hexOnly.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array(missing).fill("0"), ...tailGroups]
    .map((group) => group.padStart(4, "0"))
    .join(":");
}

/**
 * The key one client's share is counted under: an IPv4 address as itself
 * (however it was spelled: `::ffff:` mapped or not), an IPv6 address by its
 * /64, since one subscriber is given a whole /64 and may use any address in
 * it. Anything that is not an address (a missing header) shares one key.
 */
export function clientShareKey(address: string | null): string {
  if (!address) return "unknown";
  // Brackets, a zone (fe80::1%eth0) and upper case are spellings of the same address.
  const spelled = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();
  const plain = plainAddress(spelled);
  const kind = net.isIP(plain);
  if (kind === 4) return plain;
  if (kind !== 6) return "unknown";
  // An IPv4-mapped address spelled in hex (::ffff:7f00:1) is that IPv4 address.
  const groups = expandedIpv6(plain).split(":");
  if (groups.slice(0, 5).every((group) => group === "0000") && groups[5] === "ffff") {
    const [high, low] = [Number.parseInt(groups[6]!, 16), Number.parseInt(groups[7]!, 16)];
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  return `${groups.slice(0, 4).join(":")}::/64`;
}
