import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * One date format across the app (docs/decisions/0150-one-date-format.md):
 * dates shown to anyone come from app/platform/dates.ts, so no other file
 * builds a date formatter or slices an ISO string into text. The few that use
 * Intl for something other than showing a date are named here, with why.
 */
const NOT_SHOWING_DATES = new Map([
  ["app/platform/dates.ts", "the one formatter"],
  ["app/modules/folders/schedule.server.ts", "time-zone arithmetic, and occurrence keys"],
  ["app/modules/auth/user-validation.ts", "checks that a zone name is a real IANA zone"],
  ["app/modules/admin/admin-metrics.server.ts", "UTC day keys of the charts' data"],
]);

const HAND_MADE = [
  /Intl\.DateTimeFormat\b/,
  /\.toLocale(Date|Time)String\(/,
  /\.to(UTC|Date|Time)String\(/,
  /\bdateStyle\b|\btimeStyle\b/,
  /toISOString\(\)\.slice\(|\biso\.slice\(/,
];

function sourceFiles(): string[] {
  return execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "app", "emails"],
    { cwd: root, encoding: "utf8" },
  )
    .split("\n")
    .filter(
      (path) =>
        /\.tsx?$/.test(path) && !/\.test\.tsx?$/.test(path) && existsSync(`${root}/${path}`),
    );
}

test("no file formats a date by hand: they all use app/platform/dates.ts", () => {
  const files = sourceFiles();
  expect(files.length).toBeGreaterThan(100);
  const handMade = files
    .filter((path) => !NOT_SHOWING_DATES.has(path))
    .flatMap((path) =>
      readFileSync(`${root}/${path}`, "utf8")
        .split("\n")
        .flatMap((line, index) =>
          HAND_MADE.some((pattern) => pattern.test(line)) ? [`${path}:${index + 1}: ${line}`] : [],
        ),
    );
  expect(handMade).toEqual([]);
});
