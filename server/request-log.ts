import type { ServerResponse } from "node:http";
import { loggablePath } from "~/platform/secret-paths";
import { type ExpressRequest, routerUrl } from "./router-url";

/**
 * One line per request, like remix-serve's morgan "tiny", with the path the
 * router matched rather than the bytes sent, so that no code is written down:
 * the segments of the routes that carry one (app/platform/secret-paths.ts)
 * are `[redacted]` however they were spelled, and no query string is written
 * (reset, verification and unsubscribe links carry their token there). A log
 * is read by more people and kept longer than a code may be known.
 * docs/decisions/0111-secret-paths-never-logged.md
 */
export function requestLogLine(
  request: ExpressRequest,
  response: ServerResponse,
  durationMs: number,
): string {
  const url = routerUrl(request);
  const path = url ? loggablePath(url) : "[unparsable address]";
  const length = response.getHeader("content-length") ?? "-";
  return `${request.method} ${path} ${response.statusCode} ${length} - ${durationMs.toFixed(3)} ms`;
}

export function logRequests(request: ExpressRequest, response: ServerResponse) {
  const started = performance.now();
  response.once("finish", () => {
    console.log(requestLogLine(request, response, performance.now() - started));
  });
}
