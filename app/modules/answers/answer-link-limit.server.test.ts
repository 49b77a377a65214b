import { describe, expect, test } from "vitest";
import { answerLinkCode } from "~/modules/recipients/recipient-links.server";
import { peekRateLimit } from "~/platform/rate-limit.server";
import { ANSWER_LINK_USES, answerLinkKey, takeAnswerLinkUse } from "./answer-link-limit.server";

describe("takeAnswerLinkUse", () => {
  test("counts every item's link of one copy together, then makes it wait", async () => {
    const first = answerLinkCode(9001, 1);
    const second = answerLinkCode(9001, 2);
    for (let use = 0; use < ANSWER_LINK_USES.points; use += 1) {
      expect(await takeAnswerLinkUse(use % 2 ? first : second)).toEqual({ allowed: true });
    }
    expect(await takeAnswerLinkUse(second)).toEqual({
      allowed: false,
      retryAfterSeconds: expect.any(Number),
    });
    // Another recipient's copy of the same issue is counted on its own.
    expect(await takeAnswerLinkUse(answerLinkCode(9002, 1))).toEqual({ allowed: true });
  });

  test("a forged code counts nothing", async () => {
    const genuine = answerLinkCode(9003, 5);
    const forged = `${genuine.slice(0, -1)}${genuine.endsWith("A") ? "B" : "A"}`;
    expect(answerLinkKey(forged)).toBeNull();
    expect(await takeAnswerLinkUse(forged)).toEqual({ allowed: true });
    expect(await peekRateLimit(ANSWER_LINK_USES, "copy:9003")).toEqual({
      allowed: true,
      remaining: ANSWER_LINK_USES.points,
    });
  });
});
