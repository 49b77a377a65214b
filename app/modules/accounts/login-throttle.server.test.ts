import { and, eq, sql } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { securityEvents, users } from "#db/schema";
import { db } from "~/platform/db.server";
import { runInRequestContext } from "~/platform/request-context.server";
import { requestPasswordReset, resetPassword } from "./accounts.server";
import { INVALID_LOGIN_MESSAGE, verifyLogin } from "./auth.server";
import {
  LOGIN_CLIENT_LIMIT,
  recordSuccessfulLogin,
  THROTTLED_MESSAGE,
  takeLoginAttempt,
} from "./login-throttle.server";
import { hashPassword } from "./password.server";
import { hashToken } from "./session.server";

const PASSWORD = "the right password";
const passwordHash = hashPassword(PASSWORD);
let counter = 0;

async function createUser() {
  counter += 1;
  const email = `throttle${counter}@example.com`;
  db.insert(users)
    .values({ email, emailVerified: true, passwordHash: await passwordHash })
    .run();
  return email;
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

// Every attempt spends a real scrypt check (unknown e-mails a decoy one), about a quarter of a
// second each on a 2-CPU machine: a file of 100 of them needs more than the default timeout.
describe("password log-in throttling", { timeout: 60_000 }, () => {
  test("60 wrong passwords at the same moment get five password checks", async () => {
    const email = await createUser();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => logIn(email, `wrong ${i}`, `198.51.100.${i}`)),
    );
    expect(answers.filter((answer) => answer === INVALID_LOGIN_MESSAGE)).toHaveLength(5);
    expect(answers.filter((answer) => answer === THROTTLED_MESSAGE)).toHaveLength(55);
    expect(countEvents("failed_login", email)).toBe(5);
    expect(await logIn(email, PASSWORD)).toBe(THROTTLED_MESSAGE);
  });

  test("a successful log-in forgets the failures before it", async () => {
    const email = await createUser();
    for (let i = 0; i < 4; i += 1) expect(await logIn(email, "wrong")).toBe(INVALID_LOGIN_MESSAGE);
    expect(await logIn(email, PASSWORD)).toBe("ok");
    for (let i = 0; i < 4; i += 1) expect(await logIn(email, "wrong")).toBe(INVALID_LOGIN_MESSAGE);
    expect(await logIn(email, PASSWORD)).toBe("ok");
  });

  test("a completed password reset lets the owner in at once", async () => {
    const email = await createUser();
    for (let i = 0; i < 5; i += 1) await logIn(email, "wrong", "192.0.2.66");
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

  test("one client address gets 30 attempts across accounts in 15 minutes", async () => {
    const answers = [];
    for (let i = 0; i < 31; i += 1) {
      answers.push(await logIn(`nobody${i}@example.com`, "wrong", "192.0.2.99"));
    }
    expect(answers.slice(0, 30).every((answer) => answer === INVALID_LOGIN_MESSAGE)).toBe(true);
    expect(answers[30]).toBe(THROTTLED_MESSAGE);
    expect(await logIn("nobody0@example.com", "wrong", "192.0.2.100")).toBe(INVALID_LOGIN_MESSAGE);
  });

  test("successful log-ins do not use up the client address's attempts", async () => {
    for (let i = 0; i < LOGIN_CLIENT_LIMIT.points + 5; i += 1) {
      const email = `regular${i}@example.com`;
      expect((await takeLoginAttempt(email, "192.0.2.77")).allowed).toBe(true);
      await recordSuccessfulLogin(email, "192.0.2.77");
    }
  });
});
