import { describe, expect, test } from "vitest";
import { formatCents, formatDroppedRequests, formatUptime, levels } from "./admin-display";

describe("uptime", () => {
  test("days and hours, hours and minutes, or minutes", () => {
    expect(formatUptime(0)).toBe("0m");
    expect(formatUptime(59)).toBe("0m");
    expect(formatUptime(45 * 60 + 30)).toBe("45m");
    expect(formatUptime(3600)).toBe("1h 0m");
    expect(formatUptime(5 * 3600 + 12 * 60)).toBe("5h 12m");
    expect(formatUptime(86_400)).toBe("1d 0h");
    expect(formatUptime(3 * 86_400 + 4 * 3600 + 59 * 60)).toBe("3d 4h");
  });
});

describe("dropped requests", () => {
  test("what they were, the most frequent first; none at all said so", () => {
    const none = { "went away": 0, "cross-site": 0, "too large": 0 };
    expect(formatDroppedRequests(none)).toBe("none");
    expect(formatDroppedRequests({ ...none, "cross-site": 1, "went away": 3 })).toBe(
      "3 went away, 1 cross-site",
    );
  });
});

describe("revenue", () => {
  test("dollars with two decimals", () => {
    expect(formatCents(0)).toBe("$0.00");
    expect(formatCents(499)).toBe("$4.99");
    expect(formatCents(1_234_567)).toBe("$12,345.67");
  });
});

describe("thresholds (spec section 9)", () => {
  test("above the number, never at it", () => {
    expect([levels.failedLogins(10), levels.failedLogins(11)]).toEqual(["normal", "warning"]);
    expect([levels.unauthorizedAccess(5), levels.unauthorizedAccess(6)]).toEqual([
      "normal",
      "warning",
    ]);
    expect([levels.criticalAlerts(0), levels.criticalAlerts(1)]).toEqual(["normal", "critical"]);
    expect([levels.memory(80), levels.memory(80.1)]).toEqual(["normal", "warning"]);
    expect([levels.queryMs(100), levels.queryMs(100.5)]).toEqual(["normal", "warning"]);
    expect([levels.storage(80), levels.storage(81)]).toEqual(["normal", "warning"]);
    expect([levels.retention(70), levels.retention(70.1)]).toEqual(["normal", "success"]);
  });
});
