import { generateTOTP } from "@epic-web/totp";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { recoveryCodes, securityEvents, sessions, twoFactorSecrets } from "#db/schema";
import { db } from "~/platform/db.server";
import { createSession } from "./session.server";
import {
  confirmEnrolment,
  disableTwoFactor,
  enrolmentQrCode,
  enrolmentUri,
  hasTwoFactor,
  newRecoveryCodes,
  RECOVERY_CODE_COUNT,
  recoveryCodesLeft,
  replaceRecoveryCodes,
  resetTwoFactorByOperator,
  SECOND_FACTOR_ACCOUNT_LIMITS,
  startEnrolment,
  takeSecondFactorAttempt,
  twoFactorState,
  verifySecondFactor,
} from "./two-factor.server";

const codeFor = async (secret: string) =>
  (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;

async function enrolledUser() {
  const user = createUser(db);
  const state = await startEnrolment(user.id);
  if (state.status !== "pending") throw new Error("expected a pending set-up");
  const codes = await confirmEnrolment(user.id, await codeFor(state.secret));
  if (!codes) throw new Error("expected recovery codes");
  return { user, secret: state.secret, codes };
}

test("set-up stays pending until a right code, then gives ten recovery codes stored hashed", async () => {
  const user = createUser(db);
  const state = await startEnrolment(user.id);
  expect(state.status).toBe("pending");
  if (state.status !== "pending") return;
  expect(hasTwoFactor(user.id)).toBe(false);
  expect(await confirmEnrolment(user.id, "000000")).toBeNull();
  expect(hasTwoFactor(user.id)).toBe(false);

  const codes = await confirmEnrolment(user.id, await codeFor(state.secret));
  expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
  expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
  expect(hasTwoFactor(user.id)).toBe(true);
  const stored = db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id)).all();
  expect(stored).toHaveLength(RECOVERY_CODE_COUNT);
  for (const row of stored) expect(codes).not.toContain(row.codeHash);
  expect(twoFactorState(user.id)).toMatchObject({ status: "on", recoveryCodesLeft: 10 });
});

test("starting set-up again replaces a pending secret but never an enabled one", async () => {
  const user = createUser(db);
  const first = await startEnrolment(user.id);
  const second = await startEnrolment(user.id);
  expect(first.status === "pending" && second.status === "pending").toBe(true);
  if (first.status !== "pending" || second.status !== "pending") return;
  expect(second.secret).not.toBe(first.secret);

  const { user: enrolled, secret } = await enrolledUser();
  await startEnrolment(enrolled.id);
  const row = db
    .select()
    .from(twoFactorSecrets)
    .where(eq(twoFactorSecrets.userId, enrolled.id))
    .get();
  expect(row?.secret).toBe(secret);
  expect(hasTwoFactor(enrolled.id)).toBe(true);
});

test("a code from the app works once; a wrong one never", async () => {
  const { user, secret } = await enrolledUser();
  // The enrolment's code claimed the current step: the same code again is refused.
  expect(await verifySecondFactor(user.id, await codeFor(secret))).toBeNull();
  expect(await verifySecondFactor(user.id, "123456")).toBeNull();
  expect(await verifySecondFactor(user.id, "not a code")).toBeNull();
  // A fresh step's code passes once.
  db.update(twoFactorSecrets)
    .set({ lastUsedStep: 0 })
    .where(eq(twoFactorSecrets.userId, user.id))
    .run();
  const code = await codeFor(secret);
  expect(await verifySecondFactor(user.id, code)).toBe("totp");
  expect(await verifySecondFactor(user.id, code)).toBeNull();
});

test("a recovery code works once, in any case and spacing, and is gone afterwards", async () => {
  const { user, codes } = await enrolledUser();
  const [first, second] = codes;
  expect(await verifySecondFactor(user.id, ` ${first!.toUpperCase().replaceAll("-", " ")} `)).toBe(
    "recovery",
  );
  expect(await verifySecondFactor(user.id, first!)).toBeNull();
  expect(recoveryCodesLeft(user.id)).toBe(RECOVERY_CODE_COUNT - 1);
  // Another account's code does not open this one.
  const other = await enrolledUser();
  expect(await verifySecondFactor(other.user.id, second!)).toBeNull();
  expect(await verifySecondFactor(user.id, second!)).toBe("recovery");
});

test("new recovery codes replace the old ones", async () => {
  const { user, codes } = await enrolledUser();
  const fresh = replaceRecoveryCodes(user.id);
  expect(await verifySecondFactor(user.id, codes[0]!)).toBeNull();
  expect(await verifySecondFactor(user.id, fresh[0]!)).toBe("recovery");
});

test("turning it off removes the secret and the recovery codes", async () => {
  const { user, codes } = await enrolledUser();
  disableTwoFactor(user.id);
  expect(hasTwoFactor(user.id)).toBe(false);
  expect(twoFactorState(user.id)).toEqual({ status: "off" });
  expect(await verifySecondFactor(user.id, codes[0]!)).toBeNull();
});

test("the operator's reset turns it off, ends every session and is recorded", async () => {
  const { user } = await enrolledUser();
  await createSession(user.id, new Request("http://localhost/login"), "password");
  expect(db.select().from(sessions).where(eq(sessions.userId, user.id)).all()).toHaveLength(1);

  expect(resetTwoFactorByOperator(user.id, "called them back on their known number")).toBe(true);
  expect(hasTwoFactor(user.id)).toBe(false);
  expect(recoveryCodesLeft(user.id)).toBe(0);
  expect(db.select().from(sessions).where(eq(sessions.userId, user.id)).all()).toHaveLength(0);
  const event = db
    .select()
    .from(securityEvents)
    .where(eq(securityEvents.userId, user.id))
    .all()
    .at(-1);
  expect(event).toMatchObject({
    eventType: "two_factor_disabled",
    severity: "high",
    endpoint: "cli:two-factor:reset",
    details: { source: "cli", reason: "called them back on their known number" },
  });

  expect(resetTwoFactorByOperator(user.id, "again")).toBe(false);
});

test("recovery codes look like xxxx-xxxx-xxxx without look-alike characters", () => {
  for (const code of newRecoveryCodes())
    expect(code).toMatch(/^[a-hjkmnp-z2-9]{4}(-[a-hjkmnp-z2-9]{4}){2}$/);
});

test("the otpauth URI names the issuer and the account and carries the secret and settings", () => {
  const uri = new URL(enrolmentUri("JBSWY3DPEHPK3PXP", "ada@example.com"));
  expect(uri.protocol).toBe("otpauth:");
  expect(uri.host).toBe("totp");
  expect(decodeURIComponent(uri.pathname)).toBe("/Thoughtfully:ada@example.com");
  expect(Object.fromEntries(uri.searchParams)).toEqual({
    secret: "JBSWY3DPEHPK3PXP",
    issuer: "Thoughtfully",
    algorithm: "SHA1",
    digits: "6",
    period: "30",
  });
});

test("the QR code is an SVG data URL", async () => {
  const url = await enrolmentQrCode(enrolmentUri("JBSWY3DPEHPK3PXP", "ada@example.com"));
  expect(url.startsWith("data:image/svg+xml;base64,")).toBe(true);
  expect(Buffer.from(url.split(",")[1]!, "base64").toString()).toContain("<svg");
});

test("code attempts are throttled per account: the sixth in 15 minutes is refused", async () => {
  const user = createUser(db);
  expect(SECOND_FACTOR_ACCOUNT_LIMITS[0]!.points).toBe(5);
  for (let i = 0; i < 5; i += 1) {
    expect((await takeSecondFactorAttempt(user.id, null)).allowed).toBe(true);
  }
  expect((await takeSecondFactorAttempt(user.id, null)).allowed).toBe(false);
  expect((await takeSecondFactorAttempt(createUser(db).id, null)).allowed).toBe(true);
});
