import crypto from "node:crypto";
import { generateTOTP, getTOTPAuthUri, verifyTOTP } from "@epic-web/totp";
import { and, count, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { recoveryCodes, twoFactorSecrets } from "#db/schema";
import { db, writeTransaction } from "~/platform/db.server";
import {
  consumeRateLimits,
  type RateLimit,
  refundRateLimit,
  resetRateLimit,
} from "~/platform/rate-limit.server";
import { recordOperatorSecurityEvent } from "~/platform/security-events.server";
import { revokeUserSessions } from "./session.server";

/**
 * Authenticator-app codes (TOTP, RFC 6238) and one-time recovery codes.
 * The settings are the ones every authenticator app reads from a QR code:
 * SHA-1, 6 digits, 30 seconds. A code is accepted one step either side of
 * now (clocks drift), and never twice: the step of the last accepted code is
 * kept and only a later one passes. docs/decisions/0061-two-factor-sign-in.md.
 */
const TOTP_SETTINGS = { period: 30, digits: 6, algorithm: "SHA-1" } as const;
const ISSUER = "Thoughtfully";
export const RECOVERY_CODE_COUNT = 10;

export const INVALID_CODE_MESSAGE = "That code is not valid. Please try again.";
export const SECOND_FACTOR_THROTTLED_MESSAGE =
  "Too many wrong codes. Please wait a while and try again.";

export type TwoFactorState =
  | { status: "off" }
  | { status: "pending"; secret: string }
  | { status: "on"; enabledAt: Date; recoveryCodesLeft: number };

function secretRow(userId: number) {
  return db.select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, userId)).get();
}

export function hasTwoFactor(userId: number) {
  return Boolean(secretRow(userId)?.enabledAt);
}

export function twoFactorState(userId: number): TwoFactorState {
  const row = secretRow(userId);
  if (!row) return { status: "off" };
  if (!row.enabledAt) return { status: "pending", secret: row.secret };
  return { status: "on", enabledAt: row.enabledAt, recoveryCodesLeft: recoveryCodesLeft(userId) };
}

export function recoveryCodesLeft(userId: number) {
  return (
    db.select({ n: count() }).from(recoveryCodes).where(eq(recoveryCodes.userId, userId)).get()
      ?.n ?? 0
  );
}

/** A new secret waiting for its first code; an enabled one is left alone. */
export async function startEnrolment(userId: number) {
  const { secret } = await generateTOTP(TOTP_SETTINGS);
  db.insert(twoFactorSecrets)
    .values({ userId, secret })
    .onConflictDoUpdate({
      target: twoFactorSecrets.userId,
      set: { secret, lastUsedStep: null },
      where: isNull(twoFactorSecrets.enabledAt),
    })
    .run();
  return twoFactorState(userId);
}

/**
 * The otpauth URI an authenticator app reads: scanned from a QR code on
 * another screen, or opened as a link on the phone that holds the app.
 */
export function enrolmentUri(secret: string, accountName: string) {
  return getTOTPAuthUri({ ...TOTP_SETTINGS, secret, accountName, issuer: ISSUER });
}

/** The otpauth URI as an SVG QR code, in a data URL. */
export async function enrolmentQrCode(uri: string) {
  const { default: QRCode } = await import("qrcode");
  const svg = await QRCode.toString(uri, { type: "svg", margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}

const currentStep = (now: number) => Math.floor(now / 1000 / TOTP_SETTINGS.period);

/**
 * Checks a 6-digit code against the secret and claims its step in one
 * conditional update, so the same code (or an older one) cannot pass twice,
 * even when two requests carry it at the same moment.
 */
async function acceptTotp(userId: number, secret: string, code: string, now = Date.now()) {
  const otp = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(otp)) return false;
  const match = await verifyTOTP({ ...TOTP_SETTINGS, otp, secret, window: 1 });
  if (!match) return false;
  const step = currentStep(now) + match.delta;
  const claimed = db
    .update(twoFactorSecrets)
    .set({ lastUsedStep: step })
    .where(
      and(
        eq(twoFactorSecrets.userId, userId),
        eq(twoFactorSecrets.secret, secret),
        or(isNull(twoFactorSecrets.lastUsedStep), lt(twoFactorSecrets.lastUsedStep, step)),
      ),
    )
    .run();
  return claimed.changes === 1;
}

function normalizeRecoveryCode(code: string) {
  return code.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function hashRecoveryCode(code: string) {
  return crypto.createHash("sha256").update(normalizeRecoveryCode(code)).digest("hex");
}

/** Ten codes such as `k7qm-2xv9-tb4p` (60 random bits each), shown once; only their hashes are kept. */
export function newRecoveryCodes() {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 12 }, () => alphabet[crypto.randomInt(alphabet.length)]);
    return [0, 4, 8].map((start) => chars.slice(start, start + 4).join("")).join("-");
  });
}

/** Replaces every recovery code of the user with new ones, returned in plain text once. */
export function replaceRecoveryCodes(userId: number) {
  const codes = newRecoveryCodes();
  writeTransaction((tx) => {
    tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    tx.insert(recoveryCodes)
      .values(codes.map((code) => ({ userId, codeHash: hashRecoveryCode(code) })))
      .run();
  });
  return codes;
}

/**
 * Turns two-factor sign-in on once the first code from the app matches the
 * pending secret. Returns the new recovery codes, or null for a wrong code.
 */
export async function confirmEnrolment(userId: number, code: string) {
  const row = secretRow(userId);
  if (!row || row.enabledAt) return null;
  if (!(await acceptTotp(userId, row.secret, code))) return null;
  db.update(twoFactorSecrets)
    .set({ enabledAt: new Date() })
    .where(eq(twoFactorSecrets.userId, userId))
    .run();
  return replaceRecoveryCodes(userId);
}

/** A used recovery code is deleted in the same statement that finds it: it works once. */
function spendRecoveryCode(userId: number, code: string) {
  const spent = db
    .delete(recoveryCodes)
    .where(
      and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashRecoveryCode(code))),
    )
    .run();
  return spent.changes === 1;
}

/** The second factor of an enabled account: "totp", "recovery" (now spent), or null. */
export async function verifySecondFactor(
  userId: number,
  code: string,
): Promise<"totp" | "recovery" | null> {
  const row = db
    .select()
    .from(twoFactorSecrets)
    .where(and(eq(twoFactorSecrets.userId, userId), isNotNull(twoFactorSecrets.enabledAt)))
    .get();
  if (!row) return null;
  if (await acceptTotp(userId, row.secret, code)) return "totp";
  if (normalizeRecoveryCode(code).length === 12 && spendRecoveryCode(userId, code)) {
    return "recovery";
  }
  return null;
}

/** Turns two-factor sign-in off: the secret and every recovery code go. */
export function disableTwoFactor(userId: number) {
  writeTransaction((tx) => {
    tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    tx.delete(twoFactorSecrets).where(eq(twoFactorSecrets.userId, userId)).run();
  });
}

/**
 * For someone who lost their authenticator and their recovery codes: the
 * operator turns two-factor sign-in off from a shell
 * (`npm run two-factor:reset`). Every session ends, because whoever has the
 * lost phone may be signed in; an admin is asked to set codes up again at
 * the next log-in. Returns false when the account had none.
 */
export function resetTwoFactorByOperator(userId: number, reason: string | null) {
  if (!hasTwoFactor(userId)) return false;
  disableTwoFactor(userId);
  revokeUserSessions(userId);
  recordOperatorSecurityEvent({
    command: "two-factor:reset",
    eventType: "two_factor_disabled",
    severity: "high",
    userId,
    details: { source: "cli", reason },
  });
  return true;
}

/**
 * Codes are throttled like passwords (login-throttle.server.ts): per account
 * 5 tries, then up to 15 minutes; 10 an hour; 20 a day. A million codes and
 * 3 accepted at a time make a lucky guess about 1 in 17,000 a day at most.
 * Per client address the limit is looser and only failures use it up.
 */
export const SECOND_FACTOR_ACCOUNT_LIMITS: readonly RateLimit[] = [
  { name: "second_factor_account_15m", points: 5, durationSeconds: 15 * 60 },
  { name: "second_factor_account_1h", points: 10, durationSeconds: 60 * 60 },
  { name: "second_factor_account_1d", points: 20, durationSeconds: 24 * 60 * 60 },
];

export const SECOND_FACTOR_CLIENT_LIMIT: RateLimit = {
  name: "second_factor_client",
  points: 30,
  durationSeconds: 15 * 60,
};

export function takeSecondFactorAttempt(userId: number, ip: string | null) {
  return consumeRateLimits([
    ...SECOND_FACTOR_ACCOUNT_LIMITS.map((limit) => ({ limit, key: String(userId) })),
    { limit: SECOND_FACTOR_CLIENT_LIMIT, key: ip },
  ]);
}

export async function recordSuccessfulSecondFactor(userId: number, ip: string | null) {
  for (const limit of SECOND_FACTOR_ACCOUNT_LIMITS) await resetRateLimit(limit, String(userId));
  if (ip) await refundRateLimit(SECOND_FACTOR_CLIENT_LIMIT, ip);
}
