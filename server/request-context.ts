import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the server knows about a request that the Fetch API `Request` does
 * not carry: the address of the socket's peer. The server (server/index.ts)
 * runs each request inside `runInRequestContext`; the app reads it with
 * `requestContext()`. The store lives on `globalThis` because the app's copy
 * of this module is bundled into build/index.js and must find the server's
 * instance, not make one of its own. Outside the server (unit tests) there is
 * no context and the peer is unknown.
 */
export type RequestContext = { peerAddress: string | null };

const STORE_KEY = Symbol.for("thoughtfully.request-context");
const globalStore = globalThis as { [STORE_KEY]?: AsyncLocalStorage<RequestContext> };
globalStore[STORE_KEY] ??= new AsyncLocalStorage<RequestContext>();
const storage = globalStore[STORE_KEY];

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function requestContext(): RequestContext | undefined {
  return storage.getStore();
}
