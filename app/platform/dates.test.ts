import { describe, expect, test } from "vitest";
import { formatDateTime, formatDay, formatSoon, formatUtc, isoDay } from "./dates";

const instant = new Date("2026-11-30T00:01:00Z");

describe("the one date format", () => {
  test("a day reads weekday, day, month and year, without commas", () => {
    expect(formatDay(instant, "UTC")).toBe("Mon 30 Nov 2026");
    expect(formatDay(instant, "UTC", { year: false })).toBe("Mon 30 Nov");
  });

  test("a moment adds the 24-hour time", () => {
    expect(formatDateTime(instant, "UTC")).toBe("Mon 30 Nov 2026, 00:01");
    expect(formatDateTime(new Date("2026-07-04T13:05:00Z"), "UTC")).toBe("Sat 4 Jul 2026, 13:05");
  });

  test("a time soon to come: the time alone today, with its day tomorrow, in the zone given", () => {
    const now = new Date("2026-11-30T23:40:00Z");
    expect(formatSoon(new Date("2026-11-30T23:55:00Z"), "Europe/London", now)).toBe("23:55");
    expect(formatSoon(new Date("2026-12-01T00:25:00Z"), "Europe/London", now)).toBe(
      "Tue 1 Dec, 00:25",
    );
    // 00:40 on Tue 1 Dec in Paris already: a retry at 00:55 there is today.
    expect(formatSoon(new Date("2026-11-30T23:55:00Z"), "Europe/Paris", now)).toBe("00:55");
  });

  test("operators read UTC, said so", () => {
    expect(formatUtc("2026-11-30T00:01:59.000Z")).toBe("Mon 30 Nov 2026, 00:01 UTC");
  });

  test("names every month the same way everywhere", () => {
    expect(formatDay(new Date("2025-09-01T12:00:00Z"), "UTC")).toBe("Mon 1 Sep 2025");
  });

  test("is read in the zone given, not the server's", () => {
    expect(formatDateTime(instant, "America/New_York")).toBe("Sun 29 Nov 2026, 19:01");
    expect(formatDay(instant, "Pacific/Auckland")).toBe("Mon 30 Nov 2026");
    expect(formatDateTime(instant, "Asia/Kolkata")).toBe("Mon 30 Nov 2026, 05:31");
  });

  test("a file name's day is sortable and the sender's own", () => {
    expect(isoDay(new Date("2026-07-04T13:05:00Z"), "UTC")).toBe("2026-07-04");
    expect(isoDay(instant, "America/New_York")).toBe("2026-11-29");
  });
});
