import { readAnswerLinkCode } from "~/modules/recipients/recipient-links.server";
import { consumeRateLimit, type RateLimit } from "~/platform/rate-limit.server";

/**
 * How often one recipient's answer links may be used: the page opened and
 * its buttons pressed, on every item of their copy together (one issue has
 * up to 50 items), counted per copy and not per client, as the other
 * recipient links are (app/modules/sending/recipient-link-limit.server.ts).
 * A person who hearts every item of a long issue and writes a few notes uses
 * about a hundred, and mail scanners open every link of a message, some more
 * than once; a script toggling a heart is stopped after 300, as the other
 * recipient links are. Forged codes are turned away before anything is counted.
 * docs/decisions/0160-answer-page-states-and-limit.md
 */
export const ANSWER_LINK_USES: RateLimit = {
  name: "answer-link",
  points: 300,
  durationSeconds: 10 * 60,
};

/** The key a genuine answer link's uses are counted under: its copy. Null for a forged code. */
export function answerLinkKey(code: string): string | null {
  const link = readAnswerLinkCode(code);
  return link ? `copy:${link.copyId}` : null;
}

export type AnswerLinkUse = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Takes one use of an answer link. A forged code passes untouched: its route answers 404 without work. */
export async function takeAnswerLinkUse(code: string): Promise<AnswerLinkUse> {
  const key = answerLinkKey(code);
  if (!key) return { allowed: true };
  const verdict = await consumeRateLimit(ANSWER_LINK_USES, key);
  return verdict.allowed
    ? { allowed: true }
    : { allowed: false, retryAfterSeconds: verdict.retryAfterSeconds };
}
