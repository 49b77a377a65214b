import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { ServerBuild } from "@remix-run/node";
import {
  BodyTooLargeError,
  FORM_BODY_LIMIT_BYTES,
  type RouteBodyLimit,
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

/** How much of a body may be read, and whether it streams to the app (counted) or is read here first. */
export type BodyPolicy = { limitBytes: number; streamed: boolean };

function isMultipart(contentType: string | null) {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "multipart/form-data";
}

/** A route's declared limit for this body's type, else the form limit. */
export function bodyPolicyOf(route: Route | null, contentType: string | null): BodyPolicy {
  const declared = route?.module.bodyLimit;
  if (declared?.any) return { limitBytes: declared.any, streamed: true };
  if (declared?.multipart && isMultipart(contentType)) {
    return { limitBytes: declared.multipart, streamed: true };
  }
  return { limitBytes: FORM_BODY_LIMIT_BYTES, streamed: false };
}

/** The policy for each request of `build`, from the Remix request's URL (the one the router matches). */
export function createBodyPolicies(build: RouteTable) {
  const routeOf = createRouteFinder(build);
  return (request: Request) =>
    bodyPolicyOf(routeOf(new URL(request.url)), request.headers.get("content-type"));
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

/** What the server does with a streamed body the route stops reading. */
export type Abandonment = {
  /** Aborted once the answer is out: a body still arriving is let go. */
  answered: AbortSignal;
  /** Called when the rest of the body will not be read (past the limit, or after the answer). */
  abandon: () => void;
};

/**
 * A declared Content-Length over the limit is refused without reading a byte
 * (Node's parser never delivers more than the declared length). Otherwise a
 * streamed body goes on through a counter that ends it past the limit (the
 * route answers; the rest is abandoned, never read), and a form
 * without a length is read here up to the limit and abandoned as soon as it
 * passes it.
 */
export async function boundBody(
  request: Request,
  policy: BodyPolicy,
  { answered, abandon }: Abandonment,
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
      .catch(() => abandon())
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

/** How long a connection whose body is left unread stays open once answered. */
const CLOSE_DELAY_MS = 1_000;

/**
 * The rest of a body left unread is never read: it waits in the socket (the
 * kernel's buffers, not our memory) and the connection is cut CLOSE_DELAY_MS
 * after the answer is out. Cutting at once would reset the connection before
 * the client has read the answer; reading the rest would only churn memory.
 */
export function closeAfterAnswer(nodeRequest: IncomingMessage, response: ServerResponse) {
  const cut = () => {
    setTimeout(() => nodeRequest.socket.destroy(), CLOSE_DELAY_MS);
  };
  if (response.writableFinished) cut();
  else response.once("finish", cut);
}

/** 413 at once; the body is left unread and the connection closed (closeAfterAnswer). */
export function refuseTooLarge(nodeRequest: IncomingMessage, response: ServerResponse) {
  response.writeHead(413, { "Content-Type": "text/plain; charset=utf-8" });
  response.end("Request body too large");
  closeAfterAnswer(nodeRequest, response);
}
