import { describe, expect, test } from "vitest";
import { canonicalEmail } from "./email-address";

describe("canonicalEmail", () => {
  test.each([
    ["victim@example.test", "victim@example.test"],
    ["  victim@example.test  ", "victim@example.test"],
    ["VICTIM@EXAMPLE.TEST", "victim@example.test"],
    ["Victim@Example.Test", "victim@example.test"],
    ["victim@ｅxample.test", "victim@example.test"],
    ["victim@bücher.test", "victim@xn--bcher-kva.test"],
    ["victim@BÜCHER.test", "victim@xn--bcher-kva.test"],
    ["victim@xn--bcher-kva.test", "victim@xn--bcher-kva.test"],
    ["first.last+tag@example.co.uk", "first.last+tag@example.co.uk"],
  ])("%j is %j", (input, canonical) => {
    expect(canonicalEmail(input)).toBe(canonical);
  });

  test.each([
    "<victim@example.test>",
    "Victim <victim@example.test>",
    '"Victim" <victim@example.test>',
    "victim@example.test,",
    "victim@example.test, other@example.test",
    "victim@example.test;",
    "victim@example.test (work)",
    '"victim"@example.test',
    "victim @example.test",
    "victim@example.test.",
    "mailto:victim@example.test",
    "victim@exa%6dple.test",
    "victim@@example.test",
    ".victim@example.test",
    "vic..tim@example.test",
    "victim@localhost",
    "victim@1.2.3.4",
    "victim",
    "",
    `${"a".repeat(250)}@example.test`,
  ])("%j is not a bare address", (input) => {
    expect(canonicalEmail(input)).toBeNull();
  });
});
