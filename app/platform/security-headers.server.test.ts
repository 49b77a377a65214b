import { describe, expect, test } from "vitest";
import { completeSecurityHeaders, NO_SCRIPT_POLICY } from "./security-headers.server";

/** An answer's headers as Node keeps them: names case-insensitive. */
function answer(headers: Record<string, string>) {
  const map = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    getHeader: (name: string) => map.get(name.toLowerCase()),
    setHeader: (name: string, value: string) => map.set(name.toLowerCase(), value),
    get: (name: string) => map.get(name.toLowerCase()),
  };
}

describe("completeSecurityHeaders", () => {
  test.each([
    "text/html; charset=utf-8",
    "TEXT/HTML",
    "application/xhtml+xml",
    "image/svg+xml",
    "application/xml",
    "text/xml; charset=utf-8",
  ])("a %s answer without a policy gets the no-script one, no framing, no Referer", (type) => {
    const headers = answer({ "Content-Type": type });
    completeSecurityHeaders(headers, { addressCarriesSecret: false });
    expect(headers.get("Content-Security-Policy")).toBe(NO_SCRIPT_POLICY);
    expect(headers.get("X-Frame-Options")).toBe("DENY");
    expect(headers.get("Referrer-Policy")).toBe("no-referrer");
    expect(headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  test("an answer without a type could be sniffed as a page, so it gets the policy", () => {
    const headers = answer({});
    completeSecurityHeaders(headers, { addressCarriesSecret: false });
    expect(headers.get("Content-Security-Policy")).toBe(NO_SCRIPT_POLICY);
    expect(headers.get("X-Frame-Options")).toBe("DENY");
    // A redirect's Referrer-Policy would apply to the request it leads to.
    expect(headers.get("Referrer-Policy")).toBeUndefined();
  });

  test("a page without a policy keeps the Referrer-Policy it chose", () => {
    const headers = answer({ "Content-Type": "text/html", "Referrer-Policy": "same-origin" });
    completeSecurityHeaders(headers, { addressCarriesSecret: false });
    expect(headers.get("Content-Security-Policy")).toBe(NO_SCRIPT_POLICY);
    expect(headers.get("Referrer-Policy")).toBe("same-origin");
  });

  test("the no-script policy allows no script, no frame and no form at all", () => {
    expect(NO_SCRIPT_POLICY).toContain("default-src 'none'");
    expect(NO_SCRIPT_POLICY).not.toMatch(/script-src|unsafe-eval/);
    expect(NO_SCRIPT_POLICY).toContain("frame-ancestors 'none'");
    expect(NO_SCRIPT_POLICY).toContain("form-action 'none'");
    expect(NO_SCRIPT_POLICY).toMatch(/sandbox(?![^;]*allow-scripts)/);
  });

  test("a page with its own policy keeps it and its Referrer-Policy", () => {
    const headers = answer({
      "Content-Type": "text/html",
      "Content-Security-Policy": "default-src 'self'",
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
    completeSecurityHeaders(headers, { addressCarriesSecret: false });
    expect(headers.get("Content-Security-Policy")).toBe("default-src 'self'");
    expect(headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
    expect(headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  test.each(["application/json", "image/jpeg", "text/plain", "text/css", "application/javascript"])(
    "a %s answer gets nosniff only",
    (type) => {
      const headers = answer({ "Content-Type": type });
      completeSecurityHeaders(headers, { addressCarriesSecret: false });
      expect(headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(headers.get("Content-Security-Policy")).toBeUndefined();
      expect(headers.get("Referrer-Policy")).toBeUndefined();
    },
  );

  test("an answer to an address that carries a code sends no Referer, whatever the route said", () => {
    const headers = answer({
      "Content-Type": "text/html",
      "Content-Security-Policy": "default-src 'self'",
      "Referrer-Policy": "strict-origin-when-cross-origin",
    });
    completeSecurityHeaders(headers, { addressCarriesSecret: true });
    expect(headers.get("Referrer-Policy")).toBe("no-referrer");
  });

  test("such a page with forms sends its Referer to our own origin only, so its posts keep their Origin", () => {
    const headers = answer({ "Content-Type": "text/html", "Referrer-Policy": "unsafe-url" });
    completeSecurityHeaders(headers, {
      addressCarriesSecret: true,
      secretReferrerPolicy: "same-origin",
    });
    expect(headers.get("Referrer-Policy")).toBe("same-origin");
  });
});
