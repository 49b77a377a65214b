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

/**
 * A multipart form's text fields together, as much as a plain form may be:
 * only files may make a multipart body larger than a form.
 */
export const MULTIPART_TEXT_MAX_BYTES = FORM_BODY_LIMIT_BYTES;

/** A body read whole is held as its bytes and again as what its parser makes of them. */
export const WHOLE_BODY_HOLD_FACTOR = 3;

/**
 * What a streamed multipart body holds at once: two 64 KiB chunks in flight,
 * a part's headers (16 KiB at most) and the text fields, held as bytes and
 * as strings; rounded up.
 */
export const STREAMED_FORM_WORKING_SET_BYTES = 512 * 1024;

/** A route's `export const bodyLimit`: more than FORM_BODY_LIMIT_BYTES, for one kind of body. */
export type RouteBodyLimit = {
  /** A `multipart/form-data` body up to this many bytes, counted as it streams (uploads). */
  multipart?: number;
  /**
   * The route holds its multipart body whole in memory (a header image
   * resized in memory) rather than streaming its files to storage: the
   * server counts all of it against the memory budget.
   */
  multipartHeldWhole?: boolean;
  /** A body of any type up to this many bytes, counted as it streams (webhooks). */
  any?: number;
  /**
   * The route writes its `any` body to the spool (app/platform/spool.server.ts)
   * as it arrives and never holds it whole: the server counts a streamed
   * form's window of it, not all of it.
   */
  spooled?: boolean;
  /**
   * What a body refused past the limit before the route reads it is told, naming the limit
   * the person can act on (a clip's size on Add Video); otherwise "Request body too large".
   */
  tooLargeMessage?: string;
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
  return passedBodyLimit(error) !== null;
}

/** The limit a body passed (its route's), found as isBodyTooLarge finds the error; else null. */
export function passedBodyLimit(error: unknown): number | null {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.name === BODY_TOO_LARGE) return (cause as BodyTooLargeError).limitBytes;
  }
  return null;
}
