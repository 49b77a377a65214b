import {
  type IssueLinkPurpose,
  readIssueLinkCode,
} from "~/modules/recipients/recipient-links.server";
import { consumeRateLimit, type RateLimit, retryAfterMessage } from "~/platform/rate-limit.server";

/**
 * A recipient's links (the web version and its files, the open image, the
 * click redirect) need no account, so nothing else bounds how often one is
 * followed, and every use costs a render or a write. Each genuine link may be
 * used this often in ten minutes, far beyond a person reading their issue
 * (the web version of an issue with twenty photos is 21 requests). Forged
 * codes are turned away before anything is counted, so they cannot fill the
 * limits' table either; a link's uses are counted per recipient copy, not per
 * client, because mail apps fetch images through a few shared proxies.
 */
export const RECIPIENT_LINK_USES: RateLimit = {
  name: "recipient-link",
  points: 300,
  durationSeconds: 10 * 60,
};

export type RecipientLinkUse = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The key a genuine link's uses are counted under; null for a forged or malformed code. */
export function recipientLinkKey(purpose: IssueLinkPurpose, code: string): string | null {
  const copy = readIssueLinkCode(purpose, code);
  return copy ? `${purpose}:${copy.ledgerId}:${copy.email}` : null;
}

/** Takes one use of a link. A forged code passes untouched: its route answers 404 without work. */
export async function takeRecipientLinkUse(
  purpose: IssueLinkPurpose,
  code: string,
): Promise<RecipientLinkUse> {
  const key = recipientLinkKey(purpose, code);
  if (!key) return { allowed: true };
  const verdict = await consumeRateLimit(RECIPIENT_LINK_USES, key);
  return verdict.allowed
    ? { allowed: true }
    : { allowed: false, retryAfterSeconds: verdict.retryAfterSeconds };
}

/** The answer to a link used too often. */
export function tooManyLinkUses(retryAfterSeconds: number) {
  return new Response(
    `This link has been opened very often. ${retryAfterMessage(retryAfterSeconds)}`,
    {
      status: 429,
      headers: {
        "Content-Type": "text/plain; charset=utf-8",
        "Retry-After": String(retryAfterSeconds),
        "X-Robots-Tag": "noindex",
        "Cache-Control": "no-store",
      },
    },
  );
}
