import crypto from "node:crypto";
import { env } from "./env.server";

/**
 * The CSRF token's arithmetic, apart from the guard in csrf.server.ts so the
 * session layer can use it too: a form kept across a log-in is kept only when
 * it carries the token of the session that ended
 * (docs/decisions/0156-typed-input-survives-a-session-that-ended.md).
 */
export function tokenFor(binding: string) {
  return crypto
    .createHmac("sha256", env.SESSION_SECRET)
    .update(`csrf:${binding}`)
    .digest("base64url");
}

export function constantTimeEqual(a: string, b: string) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
