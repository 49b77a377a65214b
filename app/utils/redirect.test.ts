import { describe, expect, test } from "vitest";
import { safeRedirectPath } from "./redirect";

describe("safeRedirectPath", () => {
  test.each(["/profile", "/?folder=3", "/add?extension=true&url=https%3A%2F%2Fexample.com"])(
    "keeps the same-site path %s",
    (path) => {
      expect(safeRedirectPath(path)).toBe(path);
    },
  );

  test.each([
    "https://evil.example",
    "//evil.example",
    "/\\evil.example",
    "/\t/evil.example",
    "/%09/evil.example",
    "/%2F/evil.example",
    "/%5Cevil.example",
    "javascript:alert(1)",
    "  /profile",
    "",
    undefined,
    null,
    42,
  ])("falls back to / for %j", (candidate) => {
    expect(safeRedirectPath(candidate)).toBe("/");
  });
});
