/**
 * The app's one error vocabulary. Every domain error extends one of two
 * bases, and routes answer them in one way each: a `NotFoundError` is a 404
 * (the same whether the thing is missing or someone else's, so a guess tells
 * nothing), a `RuleError` is a product rule the person broke, explained in
 * its message (docs/product-rules.md, Pages and messages) next to the field or in a toast. A
 * database busy past a request's wait is neither: it is answered by the server in one way, a 503
 * with Retry-After that keeps what was typed (app/platform/database-busy.server.ts). Anything
 * else is a fault for the operator's log.
 */
export class NotFoundError extends Error {}

export class RuleError extends Error {}

/** Throws Remix's 404 (or `status`) unless `condition` holds: for loaders' and actions' own checks. */
export function invariantResponse(
  condition: unknown,
  message = "Not Found",
  status = 404,
): asserts condition {
  if (!condition) throw new Response(message, { status });
}

function answerNotFound(error: unknown): never {
  if (error instanceof NotFoundError) throw new Response("Not Found", { status: 404 });
  throw error;
}

/** Runs `work` (or awaits it); a `NotFoundError` it throws becomes the 404 response. */
export function orNotFound<T>(work: () => T): T {
  try {
    const result = work();
    return (result instanceof Promise ? result.catch(answerNotFound) : result) as T;
  } catch (error) {
    answerNotFound(error);
  }
}

/**
 * SQLite's answer when another connection held the write lock past this
 * connection's wait: SQLITE_BUSY, or one of its extended codes (a snapshot
 * gone stale, a recovery under way). By its code, through any wrapping
 * error's causes: the server bundle's copy of better-sqlite3's class is not
 * the app's.
 */
export function isDatabaseBusy(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) return true;
  }
  return false;
}

/**
 * The first line of a route's catch-all: a busy database is not a fault for
 * the route to answer (a 500, a failure toast) but the server's one busy answer
 * (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
 */
export function throwIfDatabaseBusy(error: unknown) {
  if (isDatabaseBusy(error)) throw error;
}
