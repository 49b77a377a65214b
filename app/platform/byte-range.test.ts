import { describe, expect, test } from "vitest";
import { byteRangeOf } from "./byte-range";

describe("byteRangeOf", () => {
  test.each([
    ["bytes=0-", { kind: "range", start: 0, end: 99 }],
    ["bytes=0-1", { kind: "range", start: 0, end: 1 }],
    ["bytes=10-19", { kind: "range", start: 10, end: 19 }],
    ["bytes=90-500", { kind: "range", start: 90, end: 99 }],
    ["bytes=-10", { kind: "range", start: 90, end: 99 }],
    ["bytes=-500", { kind: "range", start: 0, end: 99 }],
    ["bytes=99-99", { kind: "range", start: 99, end: 99 }],
    ["bytes=100-", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=20-10", { kind: "full" }],
    ["bytes=0-1,5-6", { kind: "full" }],
    ["items=0-1", { kind: "full" }],
    ["bytes=-", { kind: "full" }],
    ["bytes=abc", { kind: "full" }],
  ])("%s of 100 bytes", (header, expected) => {
    expect(byteRangeOf(header, 100)).toEqual(expected);
  });

  test("no header, or an empty file, is the whole file", () => {
    expect(byteRangeOf(null, 100)).toEqual({ kind: "full" });
    expect(byteRangeOf("bytes=0-", 0)).toEqual({ kind: "full" });
  });
});
