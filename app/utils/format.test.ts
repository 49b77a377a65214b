import { describe, expect, test } from "vitest";
import { formatBytes, pluralize } from "./format";

describe("formatBytes", () => {
  test.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1.0 KB"],
    [1536, "1.5 KB"],
    [20 * 1024 * 1024, "20.0 MB"],
    [1.25 * 1024 ** 3, "1.3 GB"],
    [Number.POSITIVE_INFINITY, "Unlimited"],
  ])("%d bytes reads %s", (bytes, expected) => {
    expect(formatBytes(bytes)).toBe(expected);
  });
});

test("pluralize", () => {
  expect(pluralize(1, "item")).toBe("1 item");
  expect(pluralize(3, "item")).toBe("3 items");
});
