import { generateTOTP } from "@epic-web/totp";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { securityEvents } from "#db/schema";
import { db } from "~/platform/db.server";
import { recordReauthentication } from "./reauthentication.server";
import { createSession, getCurrentSession } from "./session.server";
import { twoFactorState } from "./two-factor.server";
import { changeTwoFactorSettings } from "./two-factor-settings.server";

const ORIGIN = "http://localhost:3000";
let counter = 0;

/** A user signed in with a password, and a request of that session to the settings. */
async function signedIn({ reauthenticated }: { reauthenticated: boolean }) {
  counter += 1;
  const user = createUser(db, { email: `two-factor-settings-${counter}@example.com` });
  const setCookie = await createSession(user.id, new Request(`${ORIGIN}/login`), "password");
  const request = () =>
    new Request(`${ORIGIN}/profile/two-factor`, {
      method: "POST",
      headers: { Cookie: setCookie.split(";")[0]! },
    });
  if (reauthenticated) {
    recordReauthentication((await getCurrentSession(request()))!.sessionId, "password");
  }
  return { user, request };
}

const codeFor = async (secret: string) =>
  (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;

const eventsOf = (userId: number) =>
  db
    .select({ eventType: securityEvents.eventType })
    .from(securityEvents)
    .where(eq(securityEvents.userId, userId))
    .all()
    .map((event) => event.eventType);

async function startedSetUp() {
  const { user, request } = await signedIn({ reauthenticated: true });
  expect(await changeTwoFactorSettings(request(), user, { intent: "start" })).toEqual({
    outcome: "started",
  });
  const state = twoFactorState(user.id);
  if (state.status !== "pending") throw new Error("expected a pending set-up");
  return { user, request, secret: state.secret };
}

test("setting up asks a session that proved who it is just now, else redirects to prove it", async () => {
  const { user, request } = await signedIn({ reauthenticated: false });
  const refusal = await changeTwoFactorSettings(request(), user, { intent: "start" }).catch(
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(Response);
  expect((refusal as Response).headers.get("Location")).toMatch(/^\/reauthenticate\?/);
  expect(twoFactorState(user.id).status).toBe("off");
});

test("a wrong first code is recorded and changes nothing; the right one gives the recovery codes", async () => {
  const { user, request, secret } = await startedSetUp();
  expect(
    await changeTwoFactorSettings(request(), user, { intent: "confirm", code: "000000" }),
  ).toEqual({ outcome: "wrong-code" });
  expect(twoFactorState(user.id).status).toBe("pending");
  expect(eventsOf(user.id)).toContain("two_factor_failed");

  const confirmed = await changeTwoFactorSettings(request(), user, {
    intent: "confirm",
    code: await codeFor(secret),
  });
  expect(confirmed.outcome).toBe("recovery-codes");
  expect(twoFactorState(user.id).status).toBe("on");
  expect(eventsOf(user.id)).toContain("two_factor_enrolled");
});

test("new recovery codes and turning off take a current code, a recovery code counting as one", async () => {
  const { user, request, secret } = await startedSetUp();
  const confirmed = await changeTwoFactorSettings(request(), user, {
    intent: "confirm",
    code: await codeFor(secret),
  });
  if (confirmed.outcome !== "recovery-codes") throw new Error("expected recovery codes");
  const [recoveryCode] = confirmed.recoveryCodes;

  const replaced = await changeTwoFactorSettings(request(), user, {
    intent: "new-recovery-codes",
    code: recoveryCode!,
  });
  if (replaced.outcome !== "recovery-codes") throw new Error("expected new recovery codes");
  expect(replaced.recoveryCodes).not.toContain(recoveryCode);
  expect(eventsOf(user.id)).toContain("recovery_code_used");

  expect(
    await changeTwoFactorSettings(request(), user, {
      intent: "disable",
      code: replaced.recoveryCodes[0]!,
    }),
  ).toEqual({ outcome: "turned-off" });
  expect(twoFactorState(user.id).status).toBe("off");
  expect(eventsOf(user.id)).toContain("two_factor_disabled");
});

test("codes past the account's limit are throttled before they are checked", async () => {
  const { user, request, secret } = await startedSetUp();
  for (let attempt = 0; attempt < 5; attempt += 1) {
    await changeTwoFactorSettings(request(), user, { intent: "confirm", code: "000000" });
  }
  expect(
    await changeTwoFactorSettings(request(), user, {
      intent: "confirm",
      code: await codeFor(secret),
    }),
  ).toEqual({ outcome: "throttled" });
  expect(twoFactorState(user.id).status).toBe("pending");
  expect(eventsOf(user.id)).toContain("rate_limit_exceeded");
});
