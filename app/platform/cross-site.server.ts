import { comesFromAnotherSite } from "./cross-site";
import { env } from "./env.server";

/** The origin our pages are served from (APP_URL's): the gate's measure of "ours" too. */
export const appOrigin = new URL(env.APP_URL).origin;

/**
 * A request another site's page made (app/platform/cross-site.ts), for the
 * app's own checks: the CSRF guard, sign-out, the share target. In production
 * the server's gate (server/cross-site.ts) has already refused such a request
 * and consumed its `Origin`; under `npm run dev` (remix-serve, no gate) these
 * checks are the only ones.
 */
export function isCrossSite(request: Request) {
  const source = {
    origin: request.headers.get("origin"),
    fetchSite: request.headers.get("sec-fetch-site"),
  };
  return comesFromAnotherSite(source, [new URL(request.url).origin, appOrigin]);
}
