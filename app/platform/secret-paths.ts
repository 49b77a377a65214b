/**
 * The routes whose path carries a bearer secret in its `:name` segments:
 * whoever reads the address can act as its owner. One list, read by the
 * request log (server/request-log.ts) to write `[redacted]` in place of those
 * segments, and by the security headers to keep such addresses out of Referer.
 * Secrets in a query (reset, verification and unsubscribe tokens, OAuth's
 * code) need no list: the log never writes a query. A test walks the route
 * table and fails when a route with a code-like segment is missing here.
 * docs/decisions/0111-secret-paths-never-logged.md
 */
export type SecretRoute = {
  path: string;
  carries: string;
  /**
   * Its page has forms that post to us. Under Referrer-Policy: no-referrer a
   * browser posts with "Origin: null", which the CSRF check refuses, so such a
   * page sends its Referer to our own origin only ("same-origin"), never to
   * another site. docs/decisions/0160-answer-page-states-and-limit.md
   */
  postsForms?: true;
};

export const SECRET_ROUTES: readonly SecretRoute[] = [
  {
    path: "/v/:code",
    carries: "a recipient's web-version code (it encodes their address)",
    postsForms: true,
  },
  {
    path: "/a/:code",
    carries: "a recipient's answer code (it stands for their copy of one item)",
    postsForms: true,
  },
  {
    path: "/w/:code",
    carries: "a new recipient's welcome code (it encodes their address)",
    postsForms: true,
  },
  { path: "/v-files/:code/:itemId/:index", carries: "the same web-version code" },
  { path: "/v-files/:code/header", carries: "the same web-version code" },
  { path: "/u/:code", carries: "a recipient's short unsubscribe code" },
  { path: "/issues/:code", carries: "a recipient's archive code (it encodes their address)" },
  { path: "/t/o/:code", carries: "a tracked copy's open code" },
  { path: "/t/c/:code", carries: "a tracked copy's click code" },
  { path: "/files/:fileKey", carries: "a stored file's key" },
];

export const REDACTED = "[redacted]";

type Segment = { pattern: string; dynamic: boolean };

const patterns = SECRET_ROUTES.map((route) => ({
  segments: route.path
    .split("/")
    .filter(Boolean)
    .map((pattern): Segment => ({ pattern, dynamic: pattern.startsWith(":") })),
  postsForms: route.postsForms === true,
}));

/**
 * The path's segments as React Router compares them: each percent-decoded on
 * its own (a malformed one kept as sent). Empty segments are dropped and an
 * encoded slash splits too: the router would not serve those spellings, but a
 * code written that way is still a code.
 */
function routerSegments(url: URL) {
  return url.pathname.split("/").flatMap((raw) => decodeSafely(raw).split("/").filter(Boolean));
}

function decodeSafely(segment: string) {
  try {
    return decodeURIComponent(segment);
  } catch {
    // React Router also routes a segment it cannot decode as sent.
    return segment;
  }
}

/** How the router compares a static segment: case-insensitively, the single-fetch `.data` aside. */
const comparable = (segment: string) => segment.toLowerCase().replace(/\.data$/, "");

/** The listed routes `segments` falls under: a route matches on its leading static segments. */
function matchingPatterns(segments: string[]) {
  return patterns.filter(({ segments: pattern }) => {
    const firstDynamic = pattern.findIndex((segment) => segment.dynamic);
    if (firstDynamic === -1 || segments.length <= firstDynamic) return false;
    return pattern
      .slice(0, firstDynamic)
      .every((segment, index) => comparable(segments[index] ?? "") === segment.pattern);
  });
}

/**
 * Which segments of `segments` carry a secret: those at a listed route's
 * dynamic positions, and any that follow them (`/v/CODE/extra` is no route,
 * but its code is one).
 */
function secretPositions(segments: string[]) {
  const positions = new Set<number>();
  for (const { segments: pattern } of matchingPatterns(segments)) {
    segments.forEach((_, index) => {
      if (index >= pattern.length || pattern[index]?.dynamic) positions.add(index);
    });
  }
  return positions;
}

/**
 * The path of `url` (the URL the router matches) as the request log may
 * write it: secret segments as `[redacted]`, the others percent-encoded (so
 * no decoded control character reaches the log), and the query never, only
 * `?…` to say there was one.
 */
export function loggablePath(url: URL) {
  const segments = routerSegments(url);
  const secret = secretPositions(segments);
  const path = segments
    .map((segment, index) => (secret.has(index) ? REDACTED : encodeURIComponent(segment)))
    .join("/");
  return `/${path}${url.search ? "?…" : ""}`;
}

/** Whether the path of `url` carries a secret. */
export function carriesSecret(url: URL) {
  return secretPositions(routerSegments(url)).size > 0;
}

/**
 * The Referrer-Policy an address whose path carries a secret must send, the
 * route's choice aside: "same-origin" where its page posts forms to us, else
 * "no-referrer"; null for any other address.
 */
export function secretReferrerPolicy(url: URL): "no-referrer" | "same-origin" | null {
  const matched = matchingPatterns(routerSegments(url));
  if (matched.length === 0) return null;
  return matched.every((pattern) => pattern.postsForms) ? "same-origin" : "no-referrer";
}

/** Shorter dynamic segments are ids and indexes (`/v-files/CODE/12/0`), not worth replacing in text. */
const SECRET_MIN_LENGTH = 8;

/**
 * `text` (an error as printed) with every secret segment of `url`'s path,
 * decoded or as sent, `.data` suffix or not, written `[redacted]`.
 */
export function redactPathIn(text: string, url: URL) {
  const segments = routerSegments(url);
  const secrets = [...secretPositions(segments)]
    .map((index) => segments[index] ?? "")
    .flatMap((segment) => [segment, segment.replace(/\.data$/, "")])
    .flatMap((segment) => [segment, encodeURIComponent(segment)])
    .filter((segment) => segment.length >= SECRET_MIN_LENGTH);
  const raw = url.pathname.split("/").filter((segment) => secrets.includes(decodeSafely(segment)));
  return [...new Set([...secrets, ...raw])]
    .sort((a, b) => b.length - a.length)
    .reduce((redacted, secret) => redacted.replaceAll(secret, REDACTED), text);
}
