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
    ["/a/../profile", "/profile"],
    ["/./profile", "/profile"],
    ["/%2e%2e/profile", "/profile"],
    ["/profile#top", "/profile#top"],
  ])("resolves %s to the path the browser would follow, %s", (candidate, path) => {
    expect(safeRedirectPath(candidate)).toBe(path);
  });

  test.each([
    "https://evil.example",
    "http:evil.example",
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n/evil.example",
    "/%09/evil.example",
    "/%0A/evil.example",
    "/%2F/evil.example",
    "/%2f%2fevil.example",
    "/%5Cevil.example",
    "/%5C%5Cevil.example",
    "/.//evil.example",
    "/./%2F/evil.example",
    "/..//evil.example",
    "/a/..//evil.example",
    "/a/../..//evil.example",
    "/%2e//evil.example",
    "/%2e%2e//evil.example",
    "/%2E%2E//evil.example",
    "/.%2e//evil.example",
    "/a/%2e%2e//evil.example",
    "/%2e/%2fevil.example",
    "/%252F%252Fevil.example/../..//evil.example",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "  /profile",
    "",
    undefined,
    null,
    42,
  ])("never leaves the site for %j", (candidate) => {
    expect(safeRedirectPath(candidate)).toBe("/");
  });

  test("refuses a path longer than any of ours before parsing it", () => {
    expect(safeRedirectPath(`/${"a".repeat(3000)}`)).toBe("/");
  });
});
