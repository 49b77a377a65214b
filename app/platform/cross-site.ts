/**
 * Whether a request that changes something came from another site's page
 * (docs/decisions/0239-one-cross-site-gate.md). One rule, read by the
 * server's gate in front of every request (server/cross-site.ts) and by the
 * app's own checks behind it (app/platform/cross-site.server.ts). This file
 * is imported by route modules and by the server, so it reads no environment.
 */

/**
 * A route's `export const crossSitePosts`: why its action takes unsafe requests
 * from anywhere (a mail app's one-click unsubscribe, a webhook, the bearer-token
 * API). Such a route's own proof (a signed link, a signature, a token) is its
 * authority, never the session cookie.
 */
export type CrossSitePosts = string;

/** What the refusal says, on the server's page and the app's alike. */
export const CROSS_SITE_REFUSAL = {
  title: "Request refused",
  text: "This form was sent from another website, so nothing was changed. If you meant to do this, open Thoughtfully yourself and do it there.",
  link: "Go to Thoughtfully",
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A method that may change something: the gate looks at these only. */
export function isUnsafeMethod(method: string | undefined) {
  return !SAFE_METHODS.has(method?.toUpperCase() ?? "GET");
}

/** What the browser says about where a request came from: headers no page can set. */
export type RequestSource = { origin: string | null; fetchSite: string | null };

/**
 * Another site's page sent it: `Sec-Fetch-Site` says anything but
 * `same-origin` (our page) or `none` (the person, or the OS's share sheet,
 * started it); or `Origin` is neither of `ours`, compared as the browser
 * serialises an origin (lower case, no default port, no trailing dot or
 * slash), so any other spelling is another origin. `Origin: null` is a page
 * of no origin (a sandbox, a redirect from elsewhere) unless the browser
 * itself vouches for it in `Sec-Fetch-Site`: a share from the OS, or our own
 * page under `Referrer-Policy: no-referrer`. A request with neither header is
 * not a browser's (or an old one's, which sends no SameSite=Lax cookie with
 * another site's POST): not cross-site.
 */
export function comesFromAnotherSite(
  { origin, fetchSite }: RequestSource,
  ours: readonly string[],
): boolean {
  const vouched = fetchSite === "same-origin" || fetchSite === "none";
  if (fetchSite !== null && !vouched) return true;
  if (origin === null) return false;
  if (origin === "null") return !vouched;
  return !ours.includes(origin);
}
