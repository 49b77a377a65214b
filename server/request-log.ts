import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * One line per request, like remix-serve's morgan "tiny", but without the
 * query string: reset, verification, unsubscribe and re-subscribe links carry
 * their token there, and a log is read by more people and kept longer than a
 * token may be known. Path segments carry no secrets
 * (docs/decisions/0054-security-limits.md).
 */
export function requestLogLine(
  request: IncomingMessage,
  response: ServerResponse,
  durationMs: number,
): string {
  const target = request.url ?? "/";
  const queryAt = target.indexOf("?");
  const path = queryAt === -1 ? target : `${target.slice(0, queryAt)}?…`;
  const length = response.getHeader("content-length") ?? "-";
  return `${request.method} ${path} ${response.statusCode} ${length} - ${durationMs.toFixed(3)} ms`;
}

export function logRequests(request: IncomingMessage, response: ServerResponse) {
  const started = performance.now();
  response.once("finish", () => {
    console.log(requestLogLine(request, response, performance.now() - started));
  });
}
