import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { ServerBuild } from "@remix-run/node";
import {
  BUDGET_RETRY_AFTER_SECONDS,
  BUDGET_WAIT_MS,
  type MemoryBudget,
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
export type BodyPolicy = { limitBytes: number; streamed: boolean; holdsWhole: boolean };

function isMultipart(contentType: string | null) {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "multipart/form-data";
}

/** A route's declared limit for this body's type, else the form limit. */
export function bodyPolicyOf(route: Route | null, contentType: string | null): BodyPolicy {
  const declared = route?.module.bodyLimit;
  if (declared?.any) return { limitBytes: declared.any, streamed: true, holdsWhole: true };
  if (declared?.multipart && isMultipart(contentType)) {
    return {
      limitBytes: declared.multipart,
      streamed: true,
      holdsWhole: declared.multipartHeldWhole === true,
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

function declaredLength(request: Request): number | null {
  const declared = request.headers.get("content-length");
  return declared === null ? null : Number(declared);
}

/**
 * What the app holds in memory while it reads this body
 * (docs/memory-budget.md): a body read whole is held as bytes, then as the
 * strings or copies its parser makes, so WHOLE_BODY_HOLD_FACTOR times its
 * length (its declared length, else the most it may be); a streamed
 * multipart body only a working set (the stream's window, the part headers
 * and the form's text fields, which are capped together).
 */
export function heldBytesOf(policy: BodyPolicy, declared: number | null): number {
  if (!policy.holdsWhole) return STREAMED_FORM_WORKING_SET_BYTES;
  const length = declared === null ? policy.limitBytes : Math.min(declared, policy.limitBytes);
  return WHOLE_BODY_HOLD_FACTOR * length;
}

/** A request that sends no body holds nothing. */
function sendsBody(request: Request) {
  if (request.method === "GET" || request.method === "HEAD") return false;
  return declaredLength(request) !== 0;
}

export type MemoryVerdict = { kind: "held"; reservation: Reservation | null } | { kind: "busy" };

/**
 * Takes what the body will hold from the process's memory budget before a
 * byte of it is read, waiting BUDGET_WAIT_MS at most for room; "busy" when
 * none came (the server answers 503 and never reads the body).
 */
export async function reserveForBody(
  request: Request,
  policy: BodyPolicy,
  budget: MemoryBudget,
): Promise<MemoryVerdict> {
  if (!sendsBody(request)) return { kind: "held", reservation: null };
  const reservation = await budget.reserve(heldBytesOf(policy, declaredLength(request)), {
    waitMs: BUDGET_WAIT_MS,
  });
  return reservation ? { kind: "held", reservation } : { kind: "busy" };
}

/**
 * A stream that passes bytes on until more than `limitBytes` went through,
 * then errors; `stop` ends it early (both sides, a pending write included).
 */
export function countingStream(limitBytes: number) {
  let received = 0;
  let control: TransformStreamDefaultController<Uint8Array> | undefined;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      control = controller;
    },
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > limitBytes) controller.error(new BodyTooLargeError(limitBytes));
      else controller.enqueue(chunk);
    },
  });
  return Object.assign(stream, { stop: (reason: Error) => control?.error(reason) });
}

function withBody(request: Request, body: BodyInit) {
  return new Request(request, { body, duplex: "half" } as RequestInit);
}

export type BodyVerdict = { kind: "read"; request: Request } | { kind: "too-large" };

/**
 * A declared Content-Length over the limit is refused without reading a byte
 * (Node's parser never delivers more than the declared length). Otherwise a
 * streamed body goes on through a counter that ends it past the limit, or
 * once `answered` (the route answered; the rest is left unread, and the
 * connection closes: see answerClosesConnection), and a form without a
 * length is read here up to the limit and refused as soon as it passes it.
 */
export async function boundBody(
  request: Request,
  policy: BodyPolicy,
  answered: AbortSignal,
): Promise<BodyVerdict> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > policy.limitBytes) return { kind: "too-large" };
  const source = request.body;
  if (!source) return { kind: "read", request };
  if (policy.streamed) {
    const counter = countingStream(policy.limitBytes);
    const stop = () => counter.stop(new Error("The request was answered"));
    answered.addEventListener("abort", stop, { once: true });
    // preventCancel: cancelling the source would destroy the socket before the route's 413 is read.
    source
      .pipeTo(counter.writable, { preventCancel: true })
      .catch(() => {})
      .finally(() => answered.removeEventListener("abort", stop));
    return { kind: "read", request: withBody(request, counter.readable) };
  }
  if (declared !== null) return { kind: "read", request };
  const reader = source.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > policy.limitBytes) {
      reader.releaseLock();
      return { kind: "too-large" };
    }
    chunks.push(value);
  }
  return { kind: "read", request: withBody(request, Buffer.concat(chunks)) };
}

/**
 * Whether the connection must close after this answer: its request's body
 * has not arrived in full (refused unread, or answered part-way). The rest
 * is never read into memory, so the connection cannot carry another request;
 * the answer says so with `Connection: close`, and Node closes the socket
 * once the answer is out. A client or proxy that keeps connections alive
 * then never sends its next request into a socket about to die.
 */
export function answerClosesConnection(nodeRequest: IncomingMessage) {
  return !nodeRequest.complete;
}

function refuse(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text: string,
) {
  response.writeHead(status, {
    "Content-Type": "text/plain; charset=utf-8",
    Connection: "close",
    ...headers,
  });
  response.end(text);
}

/** 413 at once; the body is left unread and the connection closed. */
export function refuseTooLarge(response: ServerResponse) {
  refuse(response, 413, {}, "Request body too large");
}

/** 503 when the memory budget had no room in time: the body is left unread, the client told when to try again. */
export function refuseBusy(response: ServerResponse) {
  refuse(
    response,
    503,
    { "Retry-After": String(BUDGET_RETRY_AFTER_SECONDS) },
    "The server is busy. Please try again in a few seconds.",
  );
}
