import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ordinal } from "~/utils/ordinal";
import {
  deliveryLabels,
  localParts,
  nextDeliveryLabel,
  nextSendAt,
  occurrenceKey,
  type Schedule,
  scheduleLine,
  zonedTimeToUtc,
} from "./schedule.server";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const weekly = (dayOfWeek: number): Schedule => ({
  frequency: "weekly",
  dayOfWeek,
  dayOfMonth: null,
});
const monthly = (dayOfMonth: number): Schedule => ({
  frequency: "monthly",
  dayOfWeek: 1,
  dayOfMonth,
});
const daily: Schedule = { frequency: "daily", dayOfWeek: 1, dayOfMonth: null };
const biweekly = (dayOfWeek: number): Schedule => ({
  frequency: "biweekly",
  dayOfWeek,
  dayOfMonth: null,
});

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

/** The chain of deliveries after `from`, each computed from the previous one. */
function chain(schedule: Schedule, timeZone: string, from: string, count: number) {
  const result: string[] = [];
  let now = at(from);
  let last: Date | null = null;
  for (let i = 0; i < count; i++) {
    const next = nextSendAt(schedule, timeZone, now, last);
    result.push(iso(next));
    now = next;
    last = next;
  }
  return result;
}

describe("nextSendAt: concrete cases", () => {
  test("UTC weekly: the next matching weekday, strictly after now", () => {
    // 2026-11-23 is a Monday.
    expect(iso(nextSendAt(weekly(1), "UTC", at("2026-11-20T12:00Z")))).toBe(
      "2026-11-23T00:01:00.000Z",
    );
    expect(iso(nextSendAt(weekly(1), "UTC", at("2026-11-23T00:00Z")))).toBe(
      "2026-11-23T00:01:00.000Z",
    );
    expect(iso(nextSendAt(weekly(1), "UTC", at("2026-11-23T00:01Z")))).toBe(
      "2026-11-30T00:01:00.000Z",
    );
    expect(iso(nextSendAt(weekly(7), "UTC", at("2026-11-23T00:01Z")))).toBe(
      "2026-11-29T00:01:00.000Z",
    );
  });

  test("Europe/London across the March and October changes", () => {
    // Clocks go forward on Sunday 29 March 2026 at 01:00 GMT and back on 25 October at 02:00 BST.
    expect(chain(weekly(7), "Europe/London", "2026-03-25T12:00Z", 2)).toEqual([
      "2026-03-29T00:01:00.000Z", // 00:01 GMT, before the change
      "2026-04-04T23:01:00.000Z", // 00:01 BST
    ]);
    expect(chain(weekly(7), "Europe/London", "2026-10-20T12:00Z", 2)).toEqual([
      "2026-10-24T23:01:00.000Z", // 00:01 BST on the day of the change
      "2026-11-01T00:01:00.000Z", // 00:01 GMT
    ]);
    expect(chain(daily, "Europe/London", "2026-03-28T12:00Z", 2)).toEqual([
      "2026-03-29T00:01:00.000Z",
      "2026-03-29T23:01:00.000Z",
    ]);
  });

  test("America/New_York", () => {
    // Friday 2026-03-06 (EST, UTC-5) then, after the 8 March change, EDT (UTC-4).
    expect(chain(weekly(5), "America/New_York", "2026-03-01T00:00Z", 2)).toEqual([
      "2026-03-06T05:01:00.000Z",
      "2026-03-13T04:01:00.000Z",
    ]);
    // 23:30 local on Sunday is already Monday in UTC: Monday's delivery is still ahead.
    expect(iso(nextSendAt(weekly(1), "America/New_York", at("2026-11-23T04:30Z")))).toBe(
      "2026-11-23T05:01:00.000Z",
    );
  });

  test("Asia/Kolkata (UTC+05:30)", () => {
    expect(iso(nextSendAt(weekly(1), "Asia/Kolkata", at("2026-11-20T00:00Z")))).toBe(
      "2026-11-22T18:31:00.000Z",
    );
  });

  test("Pacific/Kiritimati (UTC+14): the local day starts the previous UTC day", () => {
    expect(iso(nextSendAt(weekly(1), "Pacific/Kiritimati", at("2026-11-20T00:00Z")))).toBe(
      "2026-11-22T10:01:00.000Z",
    );
    expect(iso(nextSendAt(monthly(1), "Pacific/Kiritimati", at("2026-11-30T09:00Z")))).toBe(
      "2026-11-30T10:01:00.000Z",
    );
  });

  test("Australia/Lord_Howe (30-minute DST)", () => {
    // +11 in summer, +10:30 in winter; the change back is on Sunday 5 April 2026 at 02:00.
    expect(chain(weekly(7), "Australia/Lord_Howe", "2026-03-27T00:00Z", 2)).toEqual([
      "2026-03-28T13:01:00.000Z", // Sunday 29 March 00:01 at +11
      "2026-04-04T13:01:00.000Z", // Sunday 5 April 00:01, still +11 before 02:00
    ]);
    expect(iso(nextSendAt(weekly(7), "Australia/Lord_Howe", at("2026-04-04T13:01Z")))).toBe(
      "2026-04-11T13:31:00.000Z", // 00:01 at +10:30
    );
  });

  test("monthly on the 31st falls back to the last day of shorter months", () => {
    expect(chain(monthly(31), "UTC", "2026-01-15T00:00Z", 5)).toEqual([
      "2026-01-31T00:01:00.000Z",
      "2026-02-28T00:01:00.000Z",
      "2026-03-31T00:01:00.000Z",
      "2026-04-30T00:01:00.000Z",
      "2026-05-31T00:01:00.000Z",
    ]);
  });

  test("leap years: the 29th, 30th and 31st fall on 29 February", () => {
    for (const day of [29, 30, 31]) {
      expect(iso(nextSendAt(monthly(day), "UTC", at("2028-02-10T00:00Z")))).toBe(
        "2028-02-29T00:01:00.000Z",
      );
    }
    expect(iso(nextSendAt(monthly(29), "UTC", at("2027-02-10T00:00Z")))).toBe(
      "2027-02-28T00:01:00.000Z",
    );
    expect(iso(nextSendAt(monthly(28), "UTC", at("2028-02-10T00:00Z")))).toBe(
      "2028-02-28T00:01:00.000Z",
    );
  });

  test("America/Santiago: 00:01 does not exist on the day DST starts, so 01:01", () => {
    // Clocks jump from 00:00 (-04) to 01:00 (-03) on Sunday 7 September 2025.
    const sendAt = nextSendAt(weekly(7), "America/Santiago", at("2025-09-03T12:00Z"));
    expect(iso(sendAt)).toBe("2025-09-07T04:01:00.000Z");
    expect(localParts(sendAt, "America/Santiago")).toMatchObject({ day: 7, hour: 1, minute: 1 });
    // The week after is back to 00:01.
    expect(iso(nextSendAt(weekly(7), "America/Santiago", sendAt))).toBe("2025-09-14T03:01:00.000Z");
  });

  test("America/Havana: a missing 00:01 in March, a repeated one in November (the first)", () => {
    expect(iso(nextSendAt(weekly(7), "America/Havana", at("2025-03-05T00:00Z")))).toBe(
      "2025-03-09T05:01:00.000Z",
    );
    // 01:00 CDT goes back to 00:00 CST on 2 November 2025: 00:01 happens at 04:01Z and 05:01Z.
    const first = nextSendAt(weekly(7), "America/Havana", at("2025-10-30T00:00Z"));
    expect(iso(first)).toBe("2025-11-02T04:01:00.000Z");
    // Once that one is past, the repeated 00:01 is not a second delivery.
    expect(iso(nextSendAt(weekly(7), "America/Havana", first))).toBe("2025-11-09T05:01:00.000Z");
  });

  test("Pacific/Apia skipped Friday 30 December 2011: that delivery goes out at the next minute", () => {
    const sendAt = nextSendAt(weekly(5), "Pacific/Apia", at("2011-12-27T00:00Z"));
    expect(iso(sendAt)).toBe("2011-12-30T10:01:00.000Z");
    expect(localParts(sendAt, "Pacific/Apia")).toMatchObject({ day: 31, hour: 0, minute: 1 });
    // Seen from 00:00:30 on Saturday 31 December, Friday's delivery is still a minute ahead.
    expect(nextSendAt(weekly(5), "Pacific/Apia", at("2011-12-30T10:00:30Z"))).toEqual(sendAt);
  });

  test("biweekly counts two weeks from the last send", () => {
    // Fridays: 2026-11-06, 11-13, 11-20.
    const last = at("2026-11-06T00:01Z");
    expect(iso(nextSendAt(biweekly(5), "UTC", at("2026-11-06T00:01Z"), last))).toBe(
      "2026-11-20T00:01:00.000Z",
    );
    // Without a last send: simply the next Friday.
    expect(iso(nextSendAt(biweekly(5), "UTC", at("2026-11-06T00:01Z")))).toBe(
      "2026-11-13T00:01:00.000Z",
    );
    // Sent by hand on Saturday 7 November: the Friday 13 days later is allowed.
    expect(
      iso(nextSendAt(biweekly(5), "UTC", at("2026-11-07T10:00Z"), at("2026-11-07T10:00Z"))),
    ).toBe("2026-11-20T00:01:00.000Z");
    // Long paused: the next Friday after now.
    expect(iso(nextSendAt(biweekly(5), "UTC", at("2027-01-01T12:00Z"), last))).toBe(
      "2027-01-08T00:01:00.000Z",
    );
    // The last send is counted in the sender's zone: Friday 00:01 in Kolkata is Thursday in UTC.
    const kolkataLast = at("2026-11-05T18:31Z");
    expect(iso(nextSendAt(biweekly(5), "Asia/Kolkata", kolkataLast, kolkataLast))).toBe(
      "2026-11-19T18:31:00.000Z",
    );
    expect(chain(biweekly(1), "Europe/London", "2026-10-01T00:00Z", 3)).toEqual([
      "2026-10-04T23:01:00.000Z",
      "2026-10-18T23:01:00.000Z",
      "2026-11-02T00:01:00.000Z",
    ]);
  });

  test("a bad schedule or zone is refused", () => {
    expect(() => nextSendAt(weekly(0), "UTC", new Date())).toThrow(RangeError);
    expect(() => nextSendAt(weekly(8), "UTC", new Date())).toThrow(RangeError);
    expect(() => nextSendAt(monthly(32), "UTC", new Date())).toThrow(RangeError);
    expect(() => nextSendAt(weekly(1), "Mars/Olympus_Mons", new Date())).toThrow(RangeError);
    expect(() => nextSendAt(weekly(1), "UTC", new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe("zonedTimeToUtc and localParts", () => {
  test("round-trip a wall time", () => {
    const instant = zonedTimeToUtc(2026, 7, 1, 0, 1, "Europe/London");
    expect(iso(instant)).toBe("2026-06-30T23:01:00.000Z");
    expect(localParts(instant, "Europe/London")).toEqual({
      year: 2026,
      month: 7,
      day: 1,
      hour: 0,
      minute: 1,
      second: 0,
    });
  });

  test("midnight reads as hour 0, never 24", () => {
    expect(localParts(at("2026-01-01T00:00Z"), "UTC").hour).toBe(0);
  });
});

describe("occurrenceKey", () => {
  test("the UTC minute", () => {
    expect(occurrenceKey(at("2026-11-23T00:01:00Z"))).toBe("2026-11-23T00:01Z");
    expect(occurrenceKey(at("2026-11-22T18:31:59.999Z"))).toBe("2026-11-22T18:31Z");
  });
});

describe("nextDeliveryLabel", () => {
  const now = at("2026-11-23T10:00Z"); // Monday

  test("counts calendar days in the user's zone", () => {
    expect(nextDeliveryLabel(null, "UTC", now)).toBe("Not scheduled");
    expect(nextDeliveryLabel(at("2026-11-23T23:59Z"), "UTC", now)).toBe("Today");
    expect(nextDeliveryLabel(at("2026-11-24T00:01Z"), "UTC", now)).toBe("Tomorrow");
    expect(nextDeliveryLabel(at("2026-11-25T00:01Z"), "UTC", now)).toBe("2 days");
    expect(nextDeliveryLabel(at("2026-11-30T00:01Z"), "UTC", now)).toBe("7 days");
    expect(nextDeliveryLabel(at("2026-12-01T00:01Z"), "UTC", now)).toBe("Tue 1 Dec");
    expect(nextDeliveryLabel(at("2026-12-03T00:01Z"), "UTC", now)).toBe("Thu 3 Dec");
  });

  test("uses the zone, not UTC", () => {
    // 00:01 Tuesday in Kiritimati is 10:01 UTC on Monday; 10:00 UTC Monday is Tuesday 00:00 there.
    expect(nextDeliveryLabel(at("2026-11-23T10:01Z"), "Pacific/Kiritimati", now)).toBe("Today");
    expect(nextDeliveryLabel(at("2026-11-23T10:01Z"), "UTC", now)).toBe("Today");
    expect(nextDeliveryLabel(at("2026-11-24T05:01Z"), "America/New_York", now)).toBe("Tomorrow");
    expect(nextDeliveryLabel(at("2026-12-03T05:01Z"), "America/New_York", now)).toBe("Thu 3 Dec");
  });

  test("an overdue delivery reads Today", () => {
    expect(nextDeliveryLabel(at("2026-11-22T00:01Z"), "UTC", now)).toBe("Today");
  });

  test("a page's labels read the same instant in each folder's zone, whatever was asked before", () => {
    const instant = at("2026-11-24T05:01Z");
    for (let round = 0; round < 2; round++) {
      expect(deliveryLabels("Pacific/Kiritimati", now)(instant)).toBe("Today");
      expect(deliveryLabels("America/New_York", now)(instant)).toBe("Tomorrow");
      expect(deliveryLabels("America/Los_Angeles", now)(instant)).toBe("Today");
      expect(deliveryLabels("UTC", now)(instant)).toBe("Tomorrow");
      expect(deliveryLabels("UTC", at("2026-11-24T09:00Z"))(instant)).toBe("Today");
    }
  });
});

describe("ordinal and scheduleLine", () => {
  test("ordinal suffixes", () => {
    const cases: [number, string][] = [
      [1, "1st"],
      [2, "2nd"],
      [3, "3rd"],
      [4, "4th"],
      [11, "11th"],
      [12, "12th"],
      [13, "13th"],
      [21, "21st"],
      [22, "22nd"],
      [23, "23rd"],
      [31, "31st"],
      [111, "111th"],
    ];
    for (const [n, expected] of cases) expect(ordinal(n)).toBe(expected);
  });

  test("schedule lines", () => {
    expect(scheduleLine(weekly(1))).toBe("Weekly on Monday at 00:01");
    expect(scheduleLine(weekly(7))).toBe("Weekly on Sunday at 00:01");
    expect(scheduleLine(monthly(31))).toBe("Monthly on the 31st at 00:01");
    expect(scheduleLine(biweekly(5))).toBe("Every two weeks on Friday at 00:01");
    expect(scheduleLine(daily)).toBe("Daily at 00:01");
  });
});

/* ---------------------------------------------------------------- properties */

const zones = Intl.supportedValuesOf("timeZone");

const offsetAt = (instant: number, timeZone: string) => {
  const p = localParts(instant, timeZone);
  const whole = Math.floor(instant / 1000) * 1000;
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - whole;
};

const dayNum = (p: { year: number; month: number; day: number }) =>
  Math.round(Date.UTC(p.year, p.month - 1, p.day) / DAY);

/**
 * Does the wall time `day` 00:01 happen in `timeZone`? Found independently of
 * the code under test: try every offset the zone uses within 30 hours of it.
 */
function wallTimeExists(day: number, timeZone: string) {
  return instantsOf0001(day, timeZone).length > 0;
}

/** No instant reads this local day at all (Samoa and Tokelau skipped 30 December 2011). */
function wholeDayMissing(day: number, timeZone: string) {
  for (let t = day * DAY - 30 * HOUR; t <= day * DAY + 54 * HOUR; t += 15 * MINUTE) {
    if (dayNum(localParts(t, timeZone)) === day) return false;
  }
  return true;
}

/**
 * The local days a delivery instant can belong to. Normally the one day it
 * reads 00:01 on, which also stands for the day before when that whole day was
 * skipped (its 00:01, read with the offset before the jump, lands there); when
 * 00:01 was skipped, read the instant with the offset in force just before the
 * jump, which must give 00:01 of a day on which 00:01 does not exist.
 */
function intendedDays(sendAt: Date, timeZone: string): number[] {
  const p = localParts(sendAt, timeZone);
  if (p.hour === 0 && p.minute === 1 && p.second === 0) {
    const day = dayNum(p);
    return wholeDayMissing(day - 1, timeZone) ? [day - 1, day] : [day];
  }
  const offsetNow = offsetAt(sendAt.getTime(), timeZone);
  let t = sendAt.getTime();
  while (offsetAt(t, timeZone) === offsetNow) {
    t -= 15 * MINUTE;
    if (sendAt.getTime() - t > 2 * DAY) throw new Error(`${iso(sendAt)} is not 00:01`);
  }
  const before = offsetAt(t, timeZone);
  const wall = new Date(sendAt.getTime() + before);
  expect(wall.getUTCHours() * 60 + wall.getUTCMinutes()).toBe(1);
  const day = Math.round((wall.getTime() - MINUTE) / DAY);
  expect(wallTimeExists(day, timeZone)).toBe(false);
  return [day];
}

/** The first of the instant's days that the schedule delivers on. */
function scheduledDay(
  schedule: Schedule,
  sendAt: Date,
  timeZone: string,
  lastSentDay: number | null,
) {
  const day = intendedDays(sendAt, timeZone).find((d) => matchesDay(schedule, d, lastSentDay));
  expect(day, `${iso(sendAt)} is not on a scheduled day`).toBeDefined();
  return day!;
}

function matchesDay(schedule: Schedule, day: number, lastSentDay: number | null) {
  const date = new Date(day * DAY);
  const weekday = date.getUTCDay() === 0 ? 7 : date.getUTCDay();
  const lastOfMonth = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0),
  ).getUTCDate();
  switch (schedule.frequency) {
    case "daily":
      return true;
    case "weekly":
      return weekday === schedule.dayOfWeek;
    case "biweekly":
      return weekday === schedule.dayOfWeek && (lastSentDay === null || day >= lastSentDay + 13);
    case "monthly":
      return date.getUTCDate() === Math.min(schedule.dayOfMonth ?? 1, lastOfMonth);
  }
}

const scheduleArb: fc.Arbitrary<Schedule> = fc.oneof(
  fc.constant(daily),
  fc.integer({ min: 1, max: 7 }).map(weekly),
  fc.integer({ min: 1, max: 7 }).map(biweekly),
  fc.integer({ min: 1, max: 31 }).map(monthly),
);
const instantArb = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) })
  .map((ms) => new Date(ms));
const zoneArb = fc.constantFrom(...zones);
const lastSentArb = fc.option(fc.integer({ min: 0, max: 40 * DAY }), { nil: null });

/** The instants at which the wall clock in `timeZone` reads 00:01 on `day` (0, 1 or 2). */
function instantsOf0001(day: number, timeZone: string) {
  const wall = day * DAY + MINUTE;
  const offsets = new Set<number>();
  for (let t = wall - 30 * HOUR; t <= wall + 30 * HOUR; t += 15 * MINUTE) {
    offsets.add(offsetAt(t, timeZone));
  }
  return [...new Set([...offsets].map((offset) => wall - offset))]
    .filter((instant) => {
      const p = localParts(instant, timeZone);
      return dayNum(p) === day && p.hour === 0 && p.minute === 1;
    })
    .sort((a, b) => a - b);
}

function checkNextSendAt(schedule: Schedule, timeZone: string, now: Date, lastSentAt: Date | null) {
  const sendAt = nextSendAt(schedule, timeZone, now, lastSentAt);

  expect(sendAt.getTime()).toBeGreaterThan(now.getTime());

  // On a scheduled day at 00:01 (the first one if it happens twice); when that day has no
  // 00:01, intendedDays checks the gap rule.
  const lastSentDay = lastSentAt ? dayNum(localParts(lastSentAt, timeZone)) : null;
  const day = scheduledDay(schedule, sendAt, timeZone, lastSentDay);
  const instants = instantsOf0001(day, timeZone);
  if (instants.length > 0) expect(sendAt.getTime()).toBe(instants[0]);

  // The next one: no scheduled day lies between now's day and the result's day, today's
  // delivery (when today is scheduled) is already past, and a minute earlier gives the same.
  const today = dayNum(localParts(now, timeZone));
  for (let d = today + 1; d < day; d++) {
    expect(matchesDay(schedule, d, lastSentDay)).toBe(false);
  }
  if (day > today && matchesDay(schedule, today, lastSentDay)) {
    const todays = instantsOf0001(today, timeZone);
    if (todays.length > 0) expect(todays[0]).toBeLessThanOrEqual(now.getTime());
  }
  expect(nextSendAt(schedule, timeZone, new Date(sendAt.getTime() - MINUTE), lastSentAt)).toEqual(
    sendAt,
  );

  if (schedule.frequency === "weekly") {
    // A week, plus the clock change between now and then (at most an hour, two at
    // Antarctica/Troll).
    const shift = Math.abs(
      offsetAt(now.getTime(), timeZone) - offsetAt(sendAt.getTime(), timeZone),
    );
    expect(sendAt.getTime() - now.getTime()).toBeLessThanOrEqual(7 * DAY + Math.max(HOUR, shift));
  }
}

const transitionCache = new Map<string, number[]>();

/** The instants (to the minute) at which `timeZone` changes its offset during `year`. */
function transitions(timeZone: string, year: number) {
  const key = `${timeZone} ${year}`;
  let found = transitionCache.get(key);
  if (found) return found;
  found = [];
  const end = Date.UTC(year + 1, 0, 1);
  let previous = offsetAt(Date.UTC(year, 0, 1), timeZone);
  for (let t = Date.UTC(year, 0, 1); t < end; t += 5 * DAY) {
    const next = offsetAt(t + 5 * DAY, timeZone);
    const same = next === previous;
    previous = next;
    if (same) continue;
    let [low, high] = [t, t + 5 * DAY];
    while (high - low > MINUTE) {
      const mid = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
      if (offsetAt(mid, timeZone) === offsetAt(low, timeZone)) low = mid;
      else high = mid;
    }
    found.push(high);
  }
  transitionCache.set(key, found);
  return found;
}

/** A zone and an instant from three days before to a day after one of its clock changes. */
const nearTransitionArb = fc
  .tuple(
    fc.nat({ max: zones.length - 1 }),
    fc.integer({ min: 2000, max: 2039 }),
    fc.nat(),
    fc.integer({ min: -3 * DAY, max: DAY }),
  )
  .map(([zoneIndex, year, pick, delta]) => {
    for (let i = 0; i < zones.length; i++) {
      const timeZone = zones[(zoneIndex + i) % zones.length]!;
      const changes = transitions(timeZone, year);
      if (changes.length > 0) {
        return { timeZone, now: new Date(changes[pick % changes.length]! + delta) };
      }
    }
    throw new Error(`no zone changes its clocks in ${year}`);
  });

describe("nextSendAt: properties over every zone", () => {
  test("after now, on a scheduled day at 00:01 (or the first minute after), and the next one", () => {
    fc.assert(
      fc.property(scheduleArb, zoneArb, instantArb, lastSentArb, (schedule, timeZone, now, ago) => {
        const lastSentAt =
          schedule.frequency === "biweekly" && ago !== null ? new Date(now.getTime() - ago) : null;
        checkNextSendAt(schedule, timeZone, now, lastSentAt);
      }),
      { numRuns: 300 },
    );
  });

  test("the same near clock changes", () => {
    fc.assert(
      fc.property(
        scheduleArb,
        nearTransitionArb,
        lastSentArb,
        (schedule, { timeZone, now }, ago) => {
          const lastSentAt =
            schedule.frequency === "biweekly" && ago !== null
              ? new Date(now.getTime() - ago)
              : null;
          checkNextSendAt(schedule, timeZone, now, lastSentAt);
        },
      ),
      { numRuns: 300 },
    );
  });

  test("a weekly day the zone skipped entirely is delivered at the next day's 00:01", () => {
    // Tokelau moved across the date line: Friday 30 December 2011 never happened there.
    const sendAt = nextSendAt(weekly(5), "Pacific/Fakaofo", new Date("2011-12-23T11:01:00.000Z"));
    expect(sendAt).toEqual(new Date("2011-12-30T11:01:00.000Z"));
    expect(localParts(sendAt, "Pacific/Fakaofo")).toMatchObject({
      month: 12,
      day: 31,
      hour: 0,
      minute: 1,
    });
    expect(scheduledDay(weekly(5), sendAt, "Pacific/Fakaofo", null)).toBe(
      Date.UTC(2011, 11, 30) / DAY,
    );
  });

  test("a chain of weekly deliveries reads 00:01 on the right weekday every week", () => {
    fc.assert(
      fc.property(zoneArb, instantArb, fc.integer({ min: 1, max: 7 }), (timeZone, from, dow) => {
        let now = from;
        for (let i = 0; i < 8; i++) {
          const sendAt = nextSendAt(weekly(dow), timeZone, now);
          const day = scheduledDay(weekly(dow), sendAt, timeZone, null);
          if (i > 0) expect(day - dayNum(localParts(now, timeZone))).toBeLessThanOrEqual(7);
          now = sendAt;
        }
      }),
      { numRuns: 100 },
    );
  });
});
