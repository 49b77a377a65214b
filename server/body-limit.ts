import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import type { ServerBuild } from "@remix-run/node";
import {
  BUDGET_RETRY_AFTER_SECONDS,
  BUDGET_WAIT_MS,
  BUSY_MESSAGE,
  MemoryBudgetSpentError,
  type Reservation,
} from "~/platform/memory-budget.server";
import {
  BodyTooLargeError,
  FORM_BODY_LIMIT_BYTES,
  type RouteBodyLimit,
  STREAMED_FORM_WORKING_SET_BYTES,
  WHOLE_BODY_HOLD_FACTOR,
} from "~/platform/route-body-limit";

/**
 * Every request body is bounded before the app reads it, by the route that
 * will serve it (docs/decisions/0101-body-limits-by-route.md): the route is
 * found from the Remix request's own URL with the route tree and matcher
 * Remix's request handler uses, and chosen the way it chooses the route whose
 * action runs. A route that takes more than a form declares it in its module
 * (`export const bodyLimit: RouteBodyLimit`); there is no list of paths here.
 */

type RouteModule = {
  default?: unknown;
  ErrorBoundary?: unknown;
  bodyLimit?: RouteBodyLimit;
};
type Route = { id: string; path?: string; index?: boolean; module: RouteModule };
type RouteMatch = { route: Route };
export type RouteTable = Pick<ServerBuild, "routes" | "basename" | "future">;

// The copies @remix-run/node's request handler itself runs (server-runtime's
// route tree, its router's matcher), so a path is matched exactly as it is there.
const requireFromNode = createRequire(createRequire(import.meta.url).resolve("@remix-run/node"));
const { createRoutes } = requireFromNode("@remix-run/server-runtime/dist/routes.js") as {
  createRoutes: (manifest: ServerBuild["routes"]) => unknown[];
};
const { matchRoutes } = createRequire(requireFromNode.resolve("@remix-run/server-runtime"))(
  "@remix-run/router",
) as {
  matchRoutes: (routes: unknown[], pathname: string, basename?: string) => RouteMatch[] | null;
};

/** Remix's choice for a submission: the leaf with `?index`, else the deepest route with a path of its own. */
function submissionTarget(matches: RouteMatch[], search: string): Route | null {
  const leaf = matches.at(-1);
  if (!leaf) return null;
  if (leaf.route.index && new URLSearchParams(search).getAll("index").some((value) => !value)) {
    return leaf.route;
  }
  const withPath = matches.filter((match, index) => index === 0 || Boolean(match.route.path));
  return withPath.at(-1)?.route ?? null;
}

/**
 * The route whose action reads the body of a request to `url`, following
 * @remix-run/server-runtime's requestHandler: `?_data` names it, a
 * single-fetch `.data` URL is the same path's submission, a resource route
 * (no component, no error boundary) serves itself, a document its target.
 */
export function createRouteFinder(build: RouteTable) {
  const routes = createRoutes(build.routes);
  const matchesOf = (pathname: string) => matchRoutes(routes, pathname, build.basename) ?? [];
  return (url: URL): Route | null => {
    if (url.searchParams.has("_data")) {
      const id = url.searchParams.get("_data");
      return matchesOf(url.pathname).find((match) => match.route.id === id)?.route ?? null;
    }
    if (build.future.v3_singleFetch && url.pathname.endsWith(".data")) {
      // Set as Remix sets it, so the URL parser resolves what the cut uncovers (`/..data`).
      const handlerUrl = new URL(url);
      handlerUrl.pathname = url.pathname.replace(/\.data$/, "").replace(/^\/_root$/, "/");
      return submissionTarget(matchesOf(handlerUrl.pathname), url.search);
    }
    const matches = matchesOf(url.pathname);
    const leaf = matches.at(-1)?.route;
    if (leaf && leaf.module.default == null && leaf.module.ErrorBoundary == null) return leaf;
    return submissionTarget(matches, url.search);
  };
}

/**
 * How much of a body may be read, whether it streams to the app (counted) or
 * is read here first, and whether the app holds it whole once read (a
 * webhook's raw body) or only a bounded window of it at a time (multipart).
 */
export type BodyPolicy = {
  limitBytes: number;
  streamed: boolean;
  holdsWhole: boolean;
  /** The route's own words for a body refused past its limit. */
  tooLargeMessage?: string;
};

function isMultipart(contentType: string | null) {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "multipart/form-data";
}

/** A route's declared limit for this body's type, else the form limit. */
export function bodyPolicyOf(route: Route | null, contentType: string | null): BodyPolicy {
  const declared = route?.module.bodyLimit;
  if (declared?.any) {
    return { limitBytes: declared.any, streamed: true, holdsWhole: declared.spooled !== true };
  }
  if (declared?.multipart && isMultipart(contentType)) {
    return {
      limitBytes: declared.multipart,
      streamed: true,
      holdsWhole: declared.multipartHeldWhole === true,
      ...(declared.tooLargeMessage ? { tooLargeMessage: declared.tooLargeMessage } : {}),
    };
  }
  return { limitBytes: FORM_BODY_LIMIT_BYTES, streamed: false, holdsWhole: true };
}

/** The policy for each request of `build`, from the Remix request's URL (the one the router matches). */
export function createBodyPolicies(build: RouteTable) {
  const routeOf = createRouteFinder(build);
  return (request: Request) =>
    bodyPolicyOf(routeOf(new URL(request.url)), request.headers.get("content-type"));
}

/** Charges a body's bytes to the memory budget as they arrive; false when no room came in time. */
export type BodyMeter = {
  charge(bytes: number): Promise<boolean>;
  /** A body read here, arrived whole: what its parser will make of it. */
  chargeParse(): Promise<boolean>;
  release(): void;
};

/** What a meter charges: a client's reservation (app/platform/client-shares.server.ts) or any other. */
export type BodyReservation = Pick<Reservation, "take" | "release">;

/**
 * A body's bytes are counted against the process's memory budget as they
 * arrive, before the app holds them (docs/memory-budget.md), as much as is
 * buffered of them: a form read here, its bytes as they arrive, and what its
 * parser makes of them (WHOLE_BODY_HOLD_FACTOR times each byte in all) only
 * once it is whole; a body the route reads whole as it streams, that factor
 * as it arrives; a streamed multipart body only a window (the stream's
 * chunks, a part's headers, the text fields capped together),
 * STREAMED_FORM_WORKING_SET_BYTES at most. Charged as it arrives, a client
 * that sends slowly holds only what it sent. With no room, a charge waits
 * BUDGET_WAIT_MS in line for some.
 */
export function bodyMeter(policy: BodyPolicy, reservation: BodyReservation): BodyMeter {
  let received = 0;
  const heldFor = (bytes: number) => {
    if (!policy.streamed) return bytes;
    return policy.holdsWhole
      ? WHOLE_BODY_HOLD_FACTOR * bytes
      : Math.min(bytes, STREAMED_FORM_WORKING_SET_BYTES);
  };
  const take = (more: number) => more === 0 || reservation.take(more, { waitMs: BUDGET_WAIT_MS });
  return {
    async charge(bytes) {
      const more = heldFor(received + bytes) - heldFor(received);
      received += bytes;
      return take(more);
    },
    chargeParse: async () => take((WHOLE_BODY_HOLD_FACTOR - 1) * received),
    release: () => reservation.release(),
  };
}

/**
 * How long a body may take to arrive, counted only while the server waits
 * for the client's next bytes (docs/memory-budget.md, "Deadlines"), as
 * Apache's mod_reqtimeout does: a grace, then a minimum average rate (bytes
 * that came early earn the time to wait for later ones: a phone that loses
 * its signal for a while after a good start goes on), and a whole deadline
 * sized to the route's limit. Node's own 300 s for a whole request is
 * switched off (server/index.ts): it would end a large upload over a slow
 * link, yet leave a slow form 300 s.
 */
export const BODY_PACE = {
  graceMs: 10_000,
  minBytesPerSecond: 4 * 1024,
  wholeGraceMs: 30_000,
  wholeBytesPerSecond: 64 * 1024,
};
export type BodyPace = typeof BODY_PACE;

/** The waiting a body of a route with `limitBytes` has earned once `receivedBytes` arrived. */
export function bodyAllowanceMs(limitBytes: number, receivedBytes: number, pace: BodyPace) {
  const whole = pace.wholeGraceMs + (1000 * limitBytes) / pace.wholeBytesPerSecond;
  const earned = pace.graceMs + (1000 * receivedBytes) / pace.minBytesPerSecond;
  return Math.min(whole, earned);
}

const BODY_TOO_SLOW = "BodyTooSlowError";

/** How the server ends a body that arrives slower than BODY_PACE allows. */
export class BodyTooSlowError extends Error {
  override name = BODY_TOO_SLOW;
  constructor() {
    super("The request body arrived too slowly");
  }
}

export type BodyClock = {
  /** The reader's next chunk, or BodyTooSlowError once the body has used up its waiting. */
  read(
    reader: ReadableStreamDefaultReader<Uint8Array>,
  ): Promise<ReadableStreamReadResult<Uint8Array>>;
};

export function bodyClock(limitBytes: number, pace: BodyPace = BODY_PACE): BodyClock {
  let received = 0;
  let waitedMs = 0;
  return {
    async read(reader) {
      const allowedMs = bodyAllowanceMs(limitBytes, received, pace) - waitedMs;
      if (allowedMs <= 0) throw new BodyTooSlowError();
      const started = performance.now();
      const reading = reader.read();
      // Rejected later when the caller lets go of the reader after a timeout: nothing to report.
      reading.catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BodyTooSlowError()), allowedMs);
      });
      try {
        const result = await Promise.race([reading, late]);
        if (!result.done) received += result.value.byteLength;
        return result;
      } finally {
        clearTimeout(timer);
        waitedMs += performance.now() - started;
      }
    },
  };
}

/**
 * `source`'s bytes, read as they are asked for, until more than `limitBytes`
 * went through; then the stream errors (BodyTooLargeError), as it does when
 * `meter` finds no room in the memory budget (MemoryBudgetSpentError). `stop`
 * ends it early. The source is never cancelled: cancelling would destroy the
 * socket before the route's answer is read; what is left stays unread.
 *
 * A pull source rather than `pipeTo` into a TransformStream: Node 24's
 * `pipeTo` defers each write to a microtask and fails an internal assertion
 * when the destination errors in between (an early stop does exactly that).
 */
export function countedStream(
  source: ReadableStream<Uint8Array>,
  limitBytes: number,
  meter?: BodyMeter,
  pacing?: { clock: BodyClock; onTooSlow(): void },
) {
  const reader = source.getReader();
  let received = 0;
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  let ended = false;
  const end = (reason: Error) => {
    if (ended) return;
    ended = true;
    control?.error(reason);
    reader.releaseLock();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
    },
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = pacing ? await pacing.clock.read(reader) : await reader.read();
      } catch (error) {
        if (error instanceof BodyTooSlowError && !ended) pacing?.onTooSlow();
        return end(error as Error);
      }
      if (ended) return;
      if (result.done) {
        ended = true;
        return controller.close();
      }
      const value = result.value;
      received += value.byteLength;
      if (received > limitBytes) return end(new BodyTooLargeError(limitBytes));
      if (meter && !(await meter.charge(value.byteLength))) {
        return end(new MemoryBudgetSpentError("a request body"));
      }
      if (!ended) controller.enqueue(value);
    },
    cancel() {
      ended = true;
      reader.releaseLock();
    },
  });
  return Object.assign(stream, { stop: end });
}

function withBody(request: Request, body: BodyInit) {
  return new Request(request, { body, duplex: "half" } as RequestInit);
}

export type BodyVerdict =
  | { kind: "read"; request: Request }
  | { kind: "too-large" }
  | { kind: "busy" }
  | { kind: "too-slow" };

/** A Content-Length over the limit: refused without reading a byte, before anything else is asked of the body. */
export function declaredTooLarge(request: Request, policy: BodyPolicy) {
  const declared = request.headers.get("content-length");
  return declared !== null && Number(declared) > policy.limitBytes;
}

/** Whether a request comes with a body: a length above zero, or one sent in chunks. */
export function hasBody(request: Request) {
  const declared = request.headers.get("content-length");
  return declared === null ? request.headers.has("transfer-encoding") : Number(declared) > 0;
}

/**
 * A declared Content-Length over the limit is refused without reading a byte
 * (Node's parser never delivers more than the declared length). Otherwise a
 * streamed body goes on through a counter that ends it past the limit, when
 * the budget has no room, or once `answered` (the route answered; the rest
 * is left unread, and the connection closes: see closeAfterAnswer); a form
 * is read here, counted, and refused as soon as it passes the limit. Either
 * ends once the client is slower than `clock` allows: a form is then
 * "too-slow", a streamed body calls `onTooSlow` (the server answers 408) and
 * ends with BodyTooSlowError for the app.
 */
export async function boundBody(
  request: Request,
  policy: BodyPolicy,
  answered: AbortSignal,
  meter: BodyMeter,
  pacing: { clock: BodyClock; onTooSlow(): void },
): Promise<BodyVerdict> {
  if (declaredTooLarge(request, policy)) return { kind: "too-large" };
  const source = request.body;
  if (!source) return { kind: "read", request };
  if (policy.streamed) {
    const counted = countedStream(source, policy.limitBytes, meter, pacing);
    const stop = () => counted.stop(new Error("The request was answered"));
    answered.addEventListener("abort", stop, { once: true });
    return { kind: "read", request: withBody(request, counted) };
  }
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await pacing.clock.read(reader);
    } catch (error) {
      reader.releaseLock();
      if (error instanceof BodyTooSlowError) return { kind: "too-slow" };
      throw error;
    }
    const { done, value } = next;
    if (done) break;
    received += value.byteLength;
    if (received > policy.limitBytes) {
      reader.releaseLock();
      return { kind: "too-large" };
    }
    if (!(await meter.charge(value.byteLength))) {
      reader.releaseLock();
      return { kind: "busy" };
    }
    chunks.push(value);
  }
  if (!(await meter.chargeParse())) return { kind: "busy" };
  return { kind: "read", request: withBody(request, Buffer.concat(chunks)) };
}

/** How long a closing connection stays open for its client to read the answer. */
const LINGER_MS = 5_000;

/**
 * Closes the connection after an answer given before its request's body
 * arrived in full (refused unread, or answered part-way): the rest is never
 * read into memory, so the connection cannot carry another request. The
 * answer says so with `Connection: close`, so a client or proxy that keeps
 * connections alive never sends its next request into it.
 *
 * Node closes such a connection as soon as the answer is written, and a
 * socket closed while its client still sends is reset, which can throw the
 * answer away before the client has read it. So the close lingers, as
 * nginx's lingering_close does: the answer and then the end of our side go
 * out, nothing more is read (stopReading: its client is held back by TCP),
 * and the socket is destroyed after LINGER_MS. Node calls the socket's
 * destroySoon for that close; this socket's is replaced, no other's.
 */
export function closeAfterAnswer(nodeRequest: IncomingMessage, response: ServerResponse) {
  if (nodeRequest.complete || response.headersSent) return;
  response.setHeader("Connection", "close");
  const socket = nodeRequest.socket;
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    stopReading(this);
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
  };
}

/**
 * Takes no more bytes from the socket. Left reading, a connection that
 * lingers after its answer goes on filling its request's buffers (Node's and
 * the Remix body stream's, about 100 KB) before backpressure stops it, and
 * holds them, uncounted by the memory budget, until it closes: under a flood
 * of refused bodies, hundreds linger at once. `socket.pause()` stops only
 * part of that, since the HTTP parser reads the socket's handle itself; the
 * handle's own readStop stops it all.
 */
function stopReading(socket: Socket) {
  (socket as Socket & { _handle?: { readStop?: () => number } | null })._handle?.readStop?.();
}

function refuse(
  nodeRequest: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text: string,
) {
  closeAfterAnswer(nodeRequest, response);
  response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", ...headers });
  response.end(text);
}

/** 413 at once, in the route's own words if it has them; the body is left unread and the connection closed. */
export function refuseTooLarge(
  nodeRequest: IncomingMessage,
  response: ServerResponse,
  policy: Pick<BodyPolicy, "tooLargeMessage">,
) {
  refuse(nodeRequest, response, 413, {}, policy.tooLargeMessage ?? "Request body too large");
}

/** 503 when the memory budget had no room in time: the body is left unread, the client told when to try again. */
export function refuseBusy(nodeRequest: IncomingMessage, response: ServerResponse) {
  refuse(
    nodeRequest,
    response,
    503,
    { "Retry-After": String(BUDGET_RETRY_AFTER_SECONDS) },
    BUSY_MESSAGE,
  );
}

/** 408 for a body slower than BODY_PACE allows; the rest is left unread and the connection closed. */
export function refuseTooSlow(nodeRequest: IncomingMessage, response: ServerResponse) {
  if (response.headersSent) return;
  refuse(nodeRequest, response, 408, {}, "The request took too long to arrive. Please try again.");
}
