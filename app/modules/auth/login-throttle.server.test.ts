import { and, eq, sql } from "drizzle-orm";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createUser } from "#db/factories";
import { securityEvents, users } from "#db/schema";
import { cheapPasswordHash } from "#tests/support/cheap-password-hash";
import { requestPasswordReset, resetPassword } from "~/modules/accounts/accounts.server";
import { db } from "~/platform/db.server";
import { runInRequestContext } from "~/platform/request-context.server";
import { INVALID_LOGIN_MESSAGE, verifyLogin } from "./auth.server";
import {
  LOGIN_CLIENT_LIMIT,
  recordSuccessfulLogin,
  THROTTLED_MESSAGE,
  takeLoginAttempt,
} from "./login-throttle.server";
import { hashToken } from "./session.server";

const PASSWORD = "the right password";
const MINUTE = 60_000;

// These tests count attempts: hashing cost has its own in auth.server.test.ts and password.server.test.ts.
const cheapHash = cheapPasswordHash(PASSWORD);

function senderEmail() {
  return createUser(db, { passwordHash: cheapHash }).email;
}

/** A log-in from `peerAddress`: the error's message, or "ok". */
function logIn(email: string, password: string, peerAddress = "203.0.113.50") {
  const request = new Request("http://localhost:3000/login", { method: "POST" });
  const form = new FormData();
  form.set("email", email);
  form.set("password", password);
  return runInRequestContext({ peerAddress }, () => verifyLogin(request, form)).then(
    () => "ok",
    (error: Error) => error.message,
  );
}

async function failTimes(count: number, email: string, peerAddress?: string) {
  for (let i = 0; i < count; i += 1) {
    expect(await logIn(email, "wrong", peerAddress)).toBe(INVALID_LOGIN_MESSAGE);
  }
}

function countEvents(eventType: "failed_login" | "rate_limit_exceeded", email: string) {
  return db
    .select({ n: sql<number>`count(*)` })
    .from(securityEvents)
    .where(
      and(
        eq(securityEvents.eventType, eventType),
        sql`json_extract(${securityEvents.details}, '$.email') = ${email}`,
      ),
    )
    .get()!.n;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("password log-in throttling", () => {
  test("60 wrong passwords at the same moment get five password checks", async () => {
    const email = senderEmail();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => logIn(email, `wrong ${i}`, `198.51.100.${i}`)),
    );
    expect(answers.filter((answer) => answer === INVALID_LOGIN_MESSAGE)).toHaveLength(5);
    expect(answers.filter((answer) => answer === THROTTLED_MESSAGE)).toHaveLength(55);
    expect(countEvents("failed_login", email)).toBe(5);
    expect(await logIn(email, PASSWORD)).toBe(THROTTLED_MESSAGE);
  });

  test("a successful log-in forgets the failures before it", async () => {
    const email = senderEmail();
    await failTimes(4, email);
    expect(await logIn(email, PASSWORD)).toBe("ok");
    // The cheap hash was replaced by one at today's cost: put it back.
    db.update(users).set({ passwordHash: cheapHash }).where(eq(users.email, email)).run();
    await failTimes(4, email);
    expect(await logIn(email, PASSWORD)).toBe("ok");
  });

  test("a completed password reset lets the owner in at once", async () => {
    const email = senderEmail();
    await failTimes(5, email, "192.0.2.66");
    expect(await logIn(email, PASSWORD)).toBe(THROTTLED_MESSAGE);
    requestPasswordReset(email);
    const token = "reset-token-for-the-throttle-test";
    db.update(users)
      .set({ passwordResetToken: hashToken(token) })
      .where(eq(users.email, email))
      .run();
    const request = new Request("http://localhost:3000/reset-password", { method: "POST" });
    expect(await resetPassword(request, token, "a new long password")).toBe(true);
    expect(await logIn(email, "a new long password")).toBe("ok");
  });

  test("an account's wait grows with its failures: 15 minutes after 5, an hour after 10", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-03-02T09:00:00Z") });
    const email = senderEmail();
    await failTimes(5, email);
    expect(await logIn(email, PASSWORD)).toBe(THROTTLED_MESSAGE);

    vi.setSystemTime(new Date("2026-03-02T09:15:01Z"));
    await failTimes(5, email);
    expect(await logIn(email, PASSWORD)).toBe(THROTTLED_MESSAGE);

    // The 15-minute window is over again, the hour's ten failures are not.
    vi.setSystemTime(new Date("2026-03-02T09:30:02Z"));
    expect(await logIn(email, PASSWORD)).toBe(THROTTLED_MESSAGE);

    vi.setSystemTime(new Date("2026-03-02T10:00:01Z"));
    expect(await logIn(email, PASSWORD)).toBe("ok");
  });

  test("one client address gets 30 attempts across accounts in 15 minutes", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-03-02T09:00:00Z") });
    const emails = Array.from({ length: LOGIN_CLIENT_LIMIT.points + 1 }, senderEmail);
    for (const email of emails.slice(0, LOGIN_CLIENT_LIMIT.points)) {
      expect(await logIn(email, "wrong", "192.0.2.99")).toBe(INVALID_LOGIN_MESSAGE);
    }
    const [last] = emails.slice(-1) as [string];
    expect(await logIn(last, PASSWORD, "192.0.2.99")).toBe(THROTTLED_MESSAGE);
    expect(await logIn(last, "wrong", "192.0.2.100")).toBe(INVALID_LOGIN_MESSAGE);
    // An address without an account is refused the same.
    expect(await logIn("nobody@example.com", "wrong", "192.0.2.99")).toBe(THROTTLED_MESSAGE);

    vi.setSystemTime(new Date(Date.now() + 15 * MINUTE + 1_000));
    expect(await logIn(last, PASSWORD, "192.0.2.99")).toBe("ok");
  });

  test("successful log-ins do not use up the client address's attempts", async () => {
    for (let i = 0; i < LOGIN_CLIENT_LIMIT.points + 5; i += 1) {
      const email = `regular${i}@example.com`;
      expect((await takeLoginAttempt(email, "192.0.2.77")).allowed).toBe(true);
      await recordSuccessfulLogin(email, "192.0.2.77");
    }
  });
});
