/**
 * The app's one error vocabulary. Every domain error extends one of two
 * bases, and routes answer them in one way each: a `NotFoundError` is a 404
 * (the same whether the thing is missing or someone else's, so a guess tells
 * nothing), a `RuleError` is a product rule the person broke, explained in
 * its message (docs/product-rules.md, Pages and messages) next to the field or in a toast. Anything
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
