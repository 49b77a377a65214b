import { describe, expect, test, vi } from "vitest";
import { rateLimits } from "#db/schema";
import { db } from "./db.server";
import {
  consumeRateLimit,
  consumeRateLimits,
  peekRateLimit,
  type RateLimit,
  resetRateLimit,
  retryAfterMessage,
} from "./rate-limit.server";

const threePerHour: RateLimit = { name: "test_three", points: 3, durationSeconds: 3600 };

describe("consumeRateLimit", () => {
  test("allows the window's points, then refuses with the time left", async () => {
    const verdicts = [];
    for (let i = 0; i < 5; i += 1) verdicts.push(await consumeRateLimit(threePerHour, "a"));
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, false, false]);
    expect(verdicts[4]).toEqual({ allowed: false, retryAfterSeconds: expect.any(Number) });
    expect(verdicts[4]).toHaveProperty("retryAfterSeconds", expect.toBeOneOf([3599, 3600]));
    expect((await consumeRateLimit(threePerHour, "b")).allowed).toBe(true);
  });

  test("a burst at the same moment cannot pass the limit", async () => {
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => consumeRateLimit(threePerHour, "burst")),
    );
    expect(burst.filter((v) => v.allowed)).toHaveLength(3);
  });

  test("counts are kept in the database, so they outlive the process", async () => {
    await consumeRateLimit(threePerHour, "stored");
    const row = db
      .select()
      .from(rateLimits)
      .all()
      .find((r) => r.key === "test_three:stored");
    expect(row?.points).toBe(1);
    expect(row?.expire).toBeGreaterThan(Date.now());
  });

  test("a reset forgets the key; a peek takes nothing", async () => {
    for (let i = 0; i < 4; i += 1) await consumeRateLimit(threePerHour, "reset");
    expect((await peekRateLimit(threePerHour, "reset")).allowed).toBe(false);
    await resetRateLimit(threePerHour, "reset");
    expect(await peekRateLimit(threePerHour, "reset")).toEqual({ allowed: true, remaining: 3 });
    expect(await peekRateLimit(threePerHour, "reset")).toEqual({ allowed: true, remaining: 3 });
  });

  test("an expired window starts again", async () => {
    const oneSecond: RateLimit = { name: "test_second", points: 1, durationSeconds: 1 };
    expect((await consumeRateLimit(oneSecond, "x")).allowed).toBe(true);
    expect((await consumeRateLimit(oneSecond, "x")).allowed).toBe(false);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 1100 });
    try {
      expect((await consumeRateLimit(oneSecond, "x")).allowed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("consumeRateLimits", () => {
  test("refuses when any limit refuses and skips absent keys", async () => {
    const perClient: RateLimit = { name: "test_client", points: 1, durationSeconds: 60 };
    const ok = await consumeRateLimits([
      { limit: threePerHour, key: "many" },
      { limit: perClient, key: null },
    ]);
    expect(ok.allowed).toBe(true);
    await consumeRateLimit(perClient, "10.0.0.1");
    const refused = await consumeRateLimits([
      { limit: threePerHour, key: "many" },
      { limit: perClient, key: "10.0.0.1" },
    ]);
    expect(refused.allowed).toBe(false);
  });
});

test("retryAfterMessage rounds up to whole minutes", () => {
  expect(retryAfterMessage(30)).toBe("Please try again in a minute.");
  expect(retryAfterMessage(61)).toBe("Please try again in 2 minutes.");
  expect(retryAfterMessage(900)).toBe("Please try again in 15 minutes.");
});
