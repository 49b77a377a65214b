import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Every request body is bounded before the app sees it, so one large POST
 * cannot fill the 512 MB machine's memory: forms are a few kilobytes, and
 * only uploads (which stream to disk under their own per-file limits,
 * app/modules/uploads/uploads.server.ts) and webhooks (which read with their own
 * limits, app/platform/request-body.server.ts) may send more.
 * docs/decisions/0054-security-limits.md.
 */
export const FORM_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * The routes that take uploads (`parseUploadForm`) or read their body with a
 * limit of their own; `.data` is the same route's single-fetch form.
 */
const OWN_LIMIT_PATHS = [
  /^\/upload(?:\/_index)?(?:\.data)?\/?$/,
  /^\/folders\/[^/]+\/add\/[^/]+(?:\.data)?\/?$/,
  /^\/folders\/[^/]+\/items\/[^/]+\/edit(?:\.data)?\/?$/,
  /^\/api\/v1\/folders\/[^/]+\/upload\/?$/,
  /^\/api\/v1\/items\/[^/]+\/add-files\/?$/,
  /^\/webhooks\//,
];

/** The most bytes `method` on `pathname` may send; null when the route keeps its own limit. */
export function bodyLimitFor(method: string, pathname: string): number | null {
  if (method === "GET" || method === "HEAD") return null;
  return OWN_LIMIT_PATHS.some((pattern) => pattern.test(pathname)) ? null : FORM_BODY_LIMIT_BYTES;
}

export type BodyVerdict =
  | { kind: "pass" }
  | { kind: "buffered"; body: Buffer }
  | { kind: "too-large" };

/**
 * A declared Content-Length over the limit is refused without reading a byte
 * (Node's parser never delivers more than the declared length). A chunked
 * body is read up to the limit and abandoned as soon as it passes it; what
 * was read is handed on, since the stream cannot be read twice.
 */
export function checkBody(request: IncomingMessage, limit: number): Promise<BodyVerdict> {
  const declared = request.headers["content-length"];
  if (declared !== undefined) {
    return Promise.resolve(Number(declared) > limit ? { kind: "too-large" } : { kind: "pass" });
  }
  if (request.headers["transfer-encoding"] === undefined) return Promise.resolve({ kind: "pass" });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received > limit) {
        request.off("data", onData);
        request.pause();
        resolve({ kind: "too-large" });
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.once("end", () => resolve({ kind: "buffered", body: Buffer.concat(chunks) }));
    request.once("error", reject);
  });
}

/** How long the rest of a refused body is read and thrown away before the connection is cut. */
const DISCARD_MS = 1_000;

/**
 * 413 at once. The rest of the body is read and thrown away as it arrives,
 * never kept, for at most DISCARD_MS, then the connection is cut: closing it
 * at once would reset it before the client has read the answer.
 */
export function refuseTooLarge(request: IncomingMessage, response: ServerResponse) {
  response.writeHead(413, { "Content-Type": "text/plain; charset=utf-8" });
  response.end("Request body too large");
  const cut = setTimeout(() => request.socket.destroy(), DISCARD_MS);
  const keep = () => clearTimeout(cut);
  request.once("end", keep);
  request.socket.once("close", keep);
  request.resume();
}
