import { describe, expect, test } from "vitest";
import { db } from "#db/client.server";
import { securityEvents } from "#db/schema";
import { isLoginThrottled, LOGIN_THROTTLE } from "./login-throttle.server";

function failure(email: string, ipAddress: string | null, minutesAgo = 1) {
  db.insert(securityEvents)
    .values({
      eventType: "failed_login",
      ipAddress,
      details: { email },
      createdAt: new Date(Date.now() - minutesAgo * 60_000),
    })
    .run();
}

describe("isLoginThrottled", () => {
  test("locks an e-mail after five recent failures", () => {
    for (let i = 0; i < LOGIN_THROTTLE.maxFailuresPerEmail - 1; i += 1)
      failure("a@example.com", null);
    expect(isLoginThrottled("a@example.com", null)).toBe(false);
    failure("a@example.com", null);
    expect(isLoginThrottled("a@example.com", null)).toBe(true);
    expect(isLoginThrottled("b@example.com", null)).toBe(false);
  });

  test("forgets failures older than the window", () => {
    for (let i = 0; i < 10; i += 1) failure("old@example.com", null, 16);
    expect(isLoginThrottled("old@example.com", null)).toBe(false);
  });

  test("locks an address after twenty failures across e-mails", () => {
    for (let i = 0; i < LOGIN_THROTTLE.maxFailuresPerIp; i += 1) {
      failure(`user${i}@example.com`, "203.0.113.7");
    }
    expect(isLoginThrottled("fresh@example.com", "203.0.113.7")).toBe(true);
    expect(isLoginThrottled("fresh@example.com", "203.0.113.8")).toBe(false);
    expect(isLoginThrottled("fresh@example.com", null)).toBe(false);
  });
});
