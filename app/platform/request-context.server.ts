import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the server knows about a request that the Fetch API `Request` does
 * not carry: the address of the socket's peer, and (once its CSRF token
 * checked out) the posted form, for a busy database's answer to offer again
 * (app/platform/database-busy.server.ts). The server (server/index.ts)
 * runs each request inside `runInRequestContext`, which it takes from the
 * app's entry module (app/entry.server.tsx re-exports it), so the one store
 * lives in the app's build; the app reads it with `requestContext()`.
 * Outside the server (unit tests) there is no context and the peer is unknown.
 */
export type RequestContext = {
  peerAddress: string | null;
  submitted?: { formData: FormData | null; token: string | null };
  /** Answered as busy: its page's headers say when to try again. */
  databaseBusy?: boolean;
};

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function requestContext(): RequestContext | undefined {
  return storage.getStore();
}
