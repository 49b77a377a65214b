/**
 * What a route module and the server agree on about request bodies
 * (docs/decisions/0101-body-limits-by-route.md). Every body is bounded by
 * FORM_BODY_LIMIT_BYTES unless the route that serves it exports a larger
 * `bodyLimit` beside its own code. This file is imported by route modules
 * (bundled into build/index.js) and by the server (bundled into
 * build/server/index.js), so it holds no logic that depends on being one
 * instance: the error is recognised by its name.
 */

/** A form is a few kilobytes; anything bigger is not one of ours. */
export const FORM_BODY_LIMIT_BYTES = 64 * 1024;

/** A route's `export const bodyLimit`: more than FORM_BODY_LIMIT_BYTES, for one kind of body. */
export type RouteBodyLimit = {
  /** A `multipart/form-data` body up to this many bytes, counted as it streams (uploads). */
  multipart?: number;
  /** A body of any type up to this many bytes, counted as it streams (webhooks). */
  any?: number;
};

const BODY_TOO_LARGE = "BodyTooLargeError";

/** How the server ends a streamed body that passed its route's limit; the app sees it as a read error. */
export class BodyTooLargeError extends Error {
  override name = BODY_TOO_LARGE;
  constructor(readonly limitBytes: number) {
    super(`Request body over ${limitBytes} bytes`);
  }
}

/**
 * By name, not instanceof: the app's copy of this module is not the server's
 * (see above); and through causes, since a reader may wrap what it was given.
 */
export function isBodyTooLarge(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === BODY_TOO_LARGE) return true;
  }
  return false;
}
