import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { comesFromAnotherSite, isUnsafeMethod } from "./cross-site";

const OURS = ["https://thoughtfully.example", "http://127.0.0.1:3000"];
const from = (origin: string | null, fetchSite: string | null = null) =>
  comesFromAnotherSite({ origin, fetchSite }, OURS);

describe("comesFromAnotherSite", () => {
  test("our own origin, or no word of any origin, is ours", () => {
    expect(from("https://thoughtfully.example")).toBe(false);
    expect(from("http://127.0.0.1:3000", "same-origin")).toBe(false);
    expect(from(null)).toBe(false);
    expect(from(null, "same-origin")).toBe(false);
  });

  test("the person's own navigation and the OS's share sheet (Sec-Fetch-Site: none) are ours, Origin: null too", () => {
    expect(from(null, "none")).toBe(false);
    expect(from("null", "none")).toBe(false);
    // Our own page under Referrer-Policy: no-referrer posts with Origin: null.
    expect(from("null", "same-origin")).toBe(false);
  });

  test("another site's page is not, by Sec-Fetch-Site or by Origin", () => {
    expect(from(null, "cross-site")).toBe(true);
    expect(from(null, "same-site")).toBe(true);
    expect(from("https://thoughtfully.example", "cross-site")).toBe(true);
    expect(from("null")).toBe(true);
    expect(from("null", "cross-site")).toBe(true);
    expect(from("https://evil.example", "none")).toBe(true);
  });

  test("any spelling of an origin but the browser's exact one is another site", () => {
    for (const spelled of [
      "http://thoughtfully.example",
      "https://thoughtfully.example:443",
      "https://thoughtfully.example:8443",
      "https://Thoughtfully.example",
      "HTTPS://thoughtfully.example",
      "https://thoughtfully.example.",
      "https://thoughtfully.example/",
      "https://thoughtfully.example.evil.example",
      "https://evil.example#https://thoughtfully.example",
      "https://thoughtfully.example, https://evil.example",
      " https://thoughtfully.example",
      "",
    ]) {
      expect(from(spelled), spelled).toBe(true);
    }
  });

  test("whatever Origin is sent, only ours passes (fuzzed)", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom(...OURS)),
        fc.constantFrom(null, "same-origin", "none"),
        (origin, fetchSite) => {
          const vouchedNull = fetchSite !== null && origin === "null";
          expect(from(origin, fetchSite)).toBe(!OURS.includes(origin) && !vouchedNull);
        },
      ),
      { numRuns: 200 },
    );
  });
});

test("only a method that may change something is looked at", () => {
  expect(["GET", "HEAD", "OPTIONS", "get", undefined].map(isUnsafeMethod)).toEqual([
    false,
    false,
    false,
    false,
    false,
  ]);
  expect(["POST", "PUT", "PATCH", "DELETE", "PROPFIND", "post"].every(isUnsafeMethod)).toBe(true);
});
