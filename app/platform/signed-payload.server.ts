import crypto from "node:crypto";
import type { z } from "~/platform/zod";
import { env } from "./env.server";

/**
 * Small JSON payloads carried in an e-mailed link, signed with
 * SESSION_SECRET (HMAC-SHA256) and bound to a purpose, so a link made for
 * one thing can never be used for another. The payload is readable, not
 * secret: put no more in it than an id and an expiry.
 */
function signature(purpose: string, body: string) {
  return crypto
    .createHmac("sha256", env.SESSION_SECRET)
    .update(`${purpose}:${body}`)
    .digest("base64url");
}

export function signPayload(purpose: string, payload: unknown) {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${signature(purpose, body)}`;
}

/** The payload of a token signed for `purpose`, or null when it was not, or does not fit `schema`. */
export function readSignedPayload<Schema extends z.ZodType>(
  purpose: string,
  token: string,
  schema: Schema,
): z.output<Schema> | null {
  const [body, given, ...rest] = token.split(".");
  if (!body || !given || rest.length > 0) return null;
  const expected = Buffer.from(signature(purpose, body));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !crypto.timingSafeEqual(expected, actual)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
