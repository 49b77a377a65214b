import type { IncomingMessage, ServerResponse } from "node:http";
import {
  countDroppedRequest,
  type DropReason,
  refusalOf,
} from "~/platform/dropped-requests.server";
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
 *
 * A request whose client went away before its answer was out has no status
 * (`-`, unless its headers had gone) and says so; one refused by the
 * cross-site gate says that, as its 403 alone would not.
 */
export function requestLogLine(
  request: ExpressRequest,
  response: ServerResponse,
  durationMs: number,
  dropped?: DropReason,
): string {
  const url = routerUrl(request);
  const path = url ? loggablePath(url) : "[unparsable address]";
  const wentAway = dropped === "went away";
  const status = wentAway && !response.headersSent ? "-" : response.statusCode;
  const length = response.getHeader("content-length") ?? "-";
  const note = wentAway ? " (client went away)" : dropped === "cross-site" ? " (cross-site)" : "";
  return `${request.method} ${path} ${status} ${length} - ${durationMs.toFixed(3)} ms${note}`;
}

/**
 * Writes the request's line once it has ended, answered or not, and counts it
 * when it was dropped or refused (app/platform/dropped-requests.server.ts):
 * closed before its answer was out, refused by its status (413, 503…), or by
 * the caller (`refusedAs`: the cross-site gate's 403).
 */
export function logRequests(
  request: ExpressRequest,
  response: ServerResponse,
  refusedAs?: DropReason,
) {
  const started = performance.now();
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    const dropped = response.writableFinished
      ? (refusedAs ?? refusalOf(response.statusCode))
      : "went away";
    if (dropped) countDroppedRequest(dropped);
    console.log(
      requestLogLine(request, response, performance.now() - started, dropped ?? undefined),
    );
  };
  response.once("finish", write);
  // Also after "finish"; alone when the connection closed first.
  response.once("close", write);
}

type Next = (error?: unknown) => void;

/** What reading or writing a connection its client closed fails with. */
const CLIENT_GONE_CODES = new Set([
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_STREAM_DESTROYED",
  "ABORT_ERR",
]);

function isClientGoneError(error: unknown) {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (cause.name === "AbortError" || (code && CLIENT_GONE_CODES.has(code))) return true;
  }
  return false;
}

/**
 * Express's last error handler before its own: a request whose client went
 * away fails with the error of reading its body or writing its answer
 * (Node's "aborted"), which nobody can be told and which is no fault of
 * ours. Its one line is logRequests' ("client went away"); express's own
 * handler would add a stack trace for each, a cheap way for anyone to grow
 * the log. Any other error, or this one on a connection still open, goes on
 * to express's handler (its stack logged, a 500).
 */
export function leaveDroppedRequestsToTheLog(
  error: unknown,
  request: IncomingMessage,
  response: ServerResponse,
  next: Next,
) {
  const connectionGone = request.socket.destroyed || response.destroyed;
  if (connectionGone && isClientGoneError(error)) return;
  next(error);
}
