import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { spelledSecretAddress } from "#tests/support/spelled-address";
import {
  carriesSecret,
  loggablePath,
  REDACTED,
  redactPathIn,
  secretReferrerPolicy,
} from "./secret-paths";

/** The URL the router matches, built as the Express adapter builds it: origin + raw target. */
const routerUrl = (target: string) => new URL(`http://127.0.0.1:3000${target}`);
const CODE = "MTI6bXVtQGV4YW1wbGUuY29t.Zm9vYmFyYmF6cXV4";

describe("loggablePath", () => {
  test.each([
    ["/v/CODE", "/v/[redacted]"],
    ["/v-files/CODE/12/0", "/v-files/[redacted]/[redacted]/[redacted]"],
    ["/u/CODE", "/u/[redacted]"],
    ["/t/o/CODE", "/t/o/[redacted]"],
    ["/t/c/CODE?url=https%3A%2F%2Fexample.com", "/t/c/[redacted]?…"],
    ["/files/CODE", "/files/[redacted]"],
    ["/%76/CODE", "/v/[redacted]"],
    ["/V/CODE", "/V/[redacted]"],
    ["//v//CODE/", "/v/[redacted]"],
    ["/x/../v/./CODE", "/v/[redacted]"],
    ["/x/%2e%2e/v/CODE", "/v/[redacted]"],
    ["/v\\CODE", "/v/[redacted]"],
    ["/v/CODE.data", "/v/[redacted]"],
    ["/v/CODE/more/segments", "/v/[redacted]/[redacted]/[redacted]"],
    ["/v%2FCODE", "/v/[redacted]"],
    ["/t/o.data/CODE", "/t/o.data/[redacted]"],
  ])("%s is logged as %s", (target, logged) => {
    expect(loggablePath(routerUrl(target.replace("CODE", CODE)))).toBe(logged);
  });

  test.each([
    ["/login", "/login"],
    ["/folders/12/items/3/edit", "/folders/12/items/3/edit"],
    ["/reset-password?token=SECRET", "/reset-password?…"],
    ["/v", "/v"],
    ["/webhooks/../login", "/login"],
    ["/", "/"],
  ])("%s, with no secret in its path, is logged as %s", (target, logged) => {
    expect(loggablePath(routerUrl(target))).toBe(logged);
  });

  test("no decoded control character reaches the line", () => {
    expect(loggablePath(routerUrl("/a%0Ab%0D%00"))).toBe("/a%0Ab%0D%00");
  });

  test("a code never appears in the line, however the path is spelled", () => {
    fc.assert(
      fc.property(spelledSecretAddress, ({ secret, target }) => {
        const line = loggablePath(routerUrl(target));
        expect(line).not.toContain(secret);
        expect(decodeURIComponent(line)).not.toContain(secret);
        expect(line).toContain(REDACTED);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("carriesSecret", () => {
  test.each([
    ["/v/CODE", true],
    ["/a/CODE", true],
    ["/%56/CODE", true],
    ["/files/KEY", true],
    // A page with a form must keep sending its Origin (Referrer-Policy: no-referrer would make it
    // "null"), and a token in a query is never logged anyway.
    ["/reset-password?token=x", false],
    ["/unsubscribe?token=x&email=y", false],
    ["/v", false],
    ["/folders/12", false],
  ])("%s: %s", (target, carries) => {
    expect(carriesSecret(routerUrl(target))).toBe(carries);
  });
});

describe("secretReferrerPolicy", () => {
  test.each([
    // Pages whose forms post to us: a Referer to our own origin only keeps their Origin.
    ["/v/CODE", "same-origin"],
    ["/a/CODE", "same-origin"],
    ["/%41/CODE.data", "same-origin"],
    ["/v-files/CODE/12/0", "no-referrer"],
    ["/u/CODE", "no-referrer"],
    ["/files/KEY", "no-referrer"],
    ["/a", null],
    ["/folders/12", null],
  ])("%s: %s", (target, policy) => {
    expect(secretReferrerPolicy(routerUrl(target.replace("CODE", CODE)))).toBe(policy);
  });
});

describe("redactPathIn", () => {
  test("an error naming a secret path names it redacted", () => {
    const url = routerUrl(`/v/${CODE}`);
    const message = `Error: You made a POST request to "/v/${CODE}" but did not provide an \`action\``;
    expect(redactPathIn(message, url)).toBe(
      'Error: You made a POST request to "/v/[redacted]" but did not provide an `action`',
    );
  });

  test("a code sent percent-encoded or with `.data` is redacted in each spelling", () => {
    const url = routerUrl(`/v/${CODE.replace(".", "%2E")}.data`);
    const text = `at "/v/${CODE}" and "/v/${CODE.replace(".", "%2E")}.data" and ${CODE}.data`;
    expect(redactPathIn(text, url)).toBe('at "/v/[redacted]" and "/v/[redacted]" and [redacted]');
  });

  test("leaves an error about any other path as it is", () => {
    expect(redactPathIn("at /app/build/index.js", routerUrl("/a"))).toBe("at /app/build/index.js");
  });
});
