import { describe, expect, test } from "vitest";
import { createRelayPace, isThrottling, THROTTLE_PAUSE_MS } from "./relay-pace.server";

/** A pace on a clock of its own: a sleep is written down, then ends with the clock at its end. */
function pacedClock(perSecond?: number) {
  let now = 1_000_000;
  const slept: number[] = [];
  const logged: string[] = [];
  const pace = createRelayPace({
    perSecond,
    clock: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      const until = now + ms;
      await Promise.resolve();
      now = Math.max(now, until);
    },
    log: (line) => logged.push(line),
  });
  return { pace, slept, logged, advance: (ms: number) => (now += ms) };
}

const smtp = (responseCode: number, response: string) => ({ responseCode, response });

describe("isThrottling", () => {
  test.each([
    [smtp(421, "421 4.7.0 Try again later"), true],
    [smtp(421, "421 Service not available, closing channel"), true],
    [smtp(454, "454 Throttling failure: Maximum sending rate exceeded."), true],
    [smtp(450, "450 4.7.1 Rate limit exceeded for this account"), true],
    [smtp(451, "451 Too many messages, slow down"), true],
    [smtp(451, "451 4.7.1 Greylisted, try again in 5 minutes"), false],
    [smtp(450, "450 4.2.1 Mailbox busy"), false],
    [smtp(454, "454 4.7.0 Temporary authentication failure"), false],
    [smtp(554, "554 Throttling: you are blocked"), false],
    [new Error("connect ECONNREFUSED"), false],
    ["421", false],
  ])("%j: %s", (error, throttling) => {
    expect(isThrottling(error)).toBe(throttling);
  });
});

describe("the relay's pace", () => {
  test("without a ceiling or a throttling answer, nothing waits", async () => {
    const { pace, slept } = pacedClock();
    await Promise.all([pace.ready(), pace.ready(), pace.ready()]);
    expect(slept).toEqual([]);
  });

  test("a ceiling spaces the starts, also of messages waiting together", async () => {
    const { pace, slept, advance } = pacedClock(4);
    await Promise.all([pace.ready(), pace.ready(), pace.ready()]);
    expect(slept).toEqual([250, 500]);
    // After a quiet second, the next starts at once.
    advance(1_000);
    await pace.ready();
    expect(slept).toEqual([250, 500]);
  });

  test("a throttling answer pauses every start, doubling while the relay keeps throttling", async () => {
    const { pace, slept, logged } = pacedClock();
    pace.throttled("421 4.7.0 Try again later");
    // The other messages under way meet the same answer: one pause for all of them.
    pace.throttled("421 4.7.0 Try again later");
    await Promise.all([pace.ready(), pace.ready()]);
    expect(slept).toEqual([THROTTLE_PAUSE_MS.first, THROTTLE_PAUSE_MS.first]);
    pace.throttled("421 4.7.0 Try again later");
    await pace.ready();
    expect(slept.at(-1)).toBe(THROTTLE_PAUSE_MS.first * 2);
    expect(logged).toEqual([
      '[relay] throttled: "421 4.7.0 Try again later"; sending waits 1 s',
      '[relay] throttled: "421 4.7.0 Try again later"; sending waits 2 s',
    ]);
  });

  test("the pause stops growing at a minute, and a message taken after it starts again at 1 s", async () => {
    const { pace, slept } = pacedClock();
    for (let index = 0; index < 10; index++) {
      pace.throttled("454 Throttling failure");
      await pace.ready();
    }
    expect(slept.at(-1)).toBe(THROTTLE_PAUSE_MS.longest);
    pace.taken();
    pace.throttled("454 Throttling failure");
    await pace.ready();
    expect(slept.at(-1)).toBe(THROTTLE_PAUSE_MS.first);
  });

  test("a message taken during a pause (it started before) does not end it early", async () => {
    const { pace, slept } = pacedClock();
    pace.throttled("421 Slow down");
    pace.taken();
    await pace.ready();
    expect(slept).toEqual([THROTTLE_PAUSE_MS.first]);
    pace.throttled("421 Slow down");
    await pace.ready();
    expect(slept.at(-1)).toBe(THROTTLE_PAUSE_MS.first * 2);
  });
});
