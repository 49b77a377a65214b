import type { IncomingMessage } from "node:http";

/** The fields Express adds to a request, from which its Remix adapter builds the URL. */
export type ExpressRequest = IncomingMessage & {
  protocol: string;
  hostname: string;
  originalUrl: string;
};

/**
 * The URL the router matches, built as @remix-run/express builds the
 * request's URL (protocol, Host, raw target; the port aside, which no path
 * depends on): dot segments resolved and a path moved by an odd Host header
 * included, so whatever is decided on it is decided on what is served. Null
 * when it does not parse (the adapter then fails the request).
 */
export function routerUrl(request: ExpressRequest) {
  try {
    return new URL(`${request.protocol}://${request.hostname}${request.originalUrl}`);
  } catch {
    return null;
  }
}
