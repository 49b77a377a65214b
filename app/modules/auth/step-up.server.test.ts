import { generateTOTP } from "@epic-web/totp";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { sessions, twoFactorSecrets } from "#db/schema";
import { db } from "~/platform/db.server";
import { createSession, getCurrentSession, isSecondFactorSession } from "./session.server";
import { stepUpWithCode } from "./step-up.server";
import { replaceRecoveryCodes } from "./two-factor.server";

const ORIGIN = "http://localhost:3000";
let counter = 0;

/** A user with an authenticator app, signed in with a password alone; its request and session. */
async function passwordSession() {
  counter += 1;
  const user = createUser(db, { email: `step-up-${counter}@example.com` });
  const { secret } = await generateTOTP({ period: 30, digits: 6, algorithm: "SHA-1" });
  db.insert(twoFactorSecrets).values({ userId: user.id, secret, enabledAt: new Date() }).run();
  const setCookie = await createSession(user.id, new Request(`${ORIGIN}/login`), "password");
  const request = new Request(`${ORIGIN}/login/step-up`, {
    method: "POST",
    headers: { Cookie: setCookie.split(";")[0]! },
  });
  const session = (await getCurrentSession(request))!;
  const code = async () =>
    (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;
  return { user, request, session, code };
}

const sessionsOf = (userId: number) =>
  db.select().from(sessions).where(eq(sessions.userId, userId)).all();

test("a password session is not a second-factor session; null (from before) is not either", async () => {
  const { session } = await passwordSession();
  expect(session.signInMethod).toBe("password");
  expect(isSecondFactorSession(session)).toBe(false);
  expect(isSecondFactorSession({ signInMethod: null })).toBe(false);
  for (const method of ["totp", "recovery-code", "passkey"] as const) {
    expect(isSecondFactorSession({ signInMethod: method })).toBe(true);
  }
});

test("a wrong code leaves the session as it was", async () => {
  const { user, request, session } = await passwordSession();
  expect(await stepUpWithCode(request, session, "000000")).toEqual({ status: "invalid" });
  expect(sessionsOf(user.id)).toMatchObject([{ sid: session.sessionId, signInMethod: "password" }]);
});

test("the right code replaces the session with a new one signed in with it", async () => {
  const { user, request, session, code } = await passwordSession();
  const stepped = await stepUpWithCode(request, session, await code());
  expect(stepped).toMatchObject({ status: "raised", method: "totp" });
  const rows = sessionsOf(user.id);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.sid).not.toBe(session.sessionId);
  expect(rows[0]).toMatchObject({ signInMethod: "totp", reauthenticatedBy: "totp" });
  const raised = await getCurrentSession(
    new Request(`${ORIGIN}/admin/dashboard`, {
      headers: { Cookie: (stepped as { cookie: string }).cookie.split(";")[0]! },
    }),
  );
  expect(raised && isSecondFactorSession(raised)).toBe(true);
});

test("a recovery code raises the session once", async () => {
  const { user, request, session } = await passwordSession();
  const [recoveryCode] = replaceRecoveryCodes(user.id);
  expect(await stepUpWithCode(request, session, recoveryCode!)).toMatchObject({
    status: "raised",
    method: "recovery-code",
  });
  expect(sessionsOf(user.id).map((row) => row.signInMethod)).toEqual(["recovery-code"]);
});

test("wrong codes are throttled as at log-in", async () => {
  const { request, session } = await passwordSession();
  const answers = [];
  for (let i = 0; i < 6; i += 1)
    answers.push((await stepUpWithCode(request, session, "000000")).status);
  expect(answers).toEqual(["invalid", "invalid", "invalid", "invalid", "invalid", "throttled"]);
});
