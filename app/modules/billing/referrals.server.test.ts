import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createUser, uniqueEmail } from "#db/factories";
import { referralCodes, referrals, users } from "#db/schema";
import { signUp, verifyEmailToken } from "~/modules/accounts/accounts.server";
import { hashToken } from "~/modules/auth/session.server";
import { SignupSchema } from "~/modules/auth/user-validation";
import { getUsage } from "~/modules/plans/quota.server";
import { db } from "~/platform/db.server";
import {
  CODE_LENGTH,
  ensureReferralCode,
  generateReferralCode,
  getReferralCode,
  normalizeReferralCode,
  referralLink,
  referralStats,
} from "./referrals.server";

async function signUpWith(email: string, ref?: string) {
  await signUp({
    firstName: "In",
    lastName: "Vitee",
    email,
    password: "long enough password",
    timeZone: "UTC",
    ref,
  });
  return db.select().from(users).where(eq(users.email, email)).get()!;
}

/** Verifies without the e-mail: the stored hash is replaced by one we know. */
function verify(userId: number) {
  db.update(users)
    .set({
      emailVerificationToken: hashToken(`known-${userId}`),
      emailVerificationExpiresAt: new Date(Date.now() + 60_000),
    })
    .where(eq(users.id, userId))
    .run();
  expect(verifyEmailToken(`known-${userId}`)).not.toBeNull();
}

describe("codes", () => {
  test("are short, unambiguous and unique; made once per user", () => {
    const code = generateReferralCode();
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]+$/);
    expect(code).toHaveLength(CODE_LENGTH);
    expect(CODE_LENGTH).toBeLessThanOrEqual(10);

    const owner = createUser(db);
    expect(getReferralCode(owner.id)).toBeNull();
    const first = ensureReferralCode(owner.id);
    expect(ensureReferralCode(owner.id)).toBe(first);
    expect(
      db.select().from(referralCodes).where(eq(referralCodes.userId, owner.id)).all(),
    ).toHaveLength(1);

    // A collision takes the next candidate.
    const other = createUser(db);
    const candidates = [first, "ZZZZ2222"];
    expect(ensureReferralCode(other.id, () => candidates.shift()!)).toBe("ZZZZ2222");
  });

  test("normalizing accepts what a person types and refuses what cannot be a code", () => {
    expect(normalizeReferralCode(" abcd2345 ")).toBe("ABCD2345");
    expect(normalizeReferralCode("")).toBeNull();
    expect(normalizeReferralCode("x".repeat(11))).toBeNull();
    expect(normalizeReferralCode("AB-CD")).toBeNull();
    expect(referralLink("ABCD2345", "https://t.example")).toBe(
      "https://t.example/signup?ref=ABCD2345",
    );
  });
});

describe("referrals", () => {
  test("a verified invitee grows the inviter's stats and limits, up to the cap", async () => {
    const inviter = createUser(db);
    const code = ensureReferralCode(inviter.id);
    for (let index = 0; index < 6; index++) {
      const invitee = await signUpWith(uniqueEmail(`friend-${index}`), code);
      expect(referralStats(inviter.id, getUsage(inviter.id)).completedReferrals).toBe(index);
      verify(invitee.id);
    }
    const usage = getUsage(inviter.id);
    expect(referralStats(inviter.id, usage)).toEqual({
      referralCode: code,
      completedReferrals: 6,
      bonusFolders: 5,
      bonusStorageBytes: 50 * 1024 * 1024,
    });
    expect(usage.limits.maxFolders).toBe(10);
  });

  test("self-referral, a second referral of the same invitee and unknown codes give nothing and never block sign-up", async () => {
    const inviter = createUser(db);
    const code = ensureReferralCode(inviter.id);
    // The inviter "signs up" again with their own code: the address has an account already.
    await signUpWith(inviter.email, code);
    const invitee = await signUpWith(uniqueEmail("once"), code);
    // A second sign-up of the same invitee, with another person's code.
    const otherCode = ensureReferralCode(createUser(db).id);
    await signUpWith(invitee.email, otherCode);
    verify(invitee.id);
    const unknown = await signUpWith(uniqueEmail("unknown"), "NOSUCH99");
    expect(unknown).toBeDefined();

    const rows = db.select().from(referrals).where(eq(referrals.inviteeUserId, invitee.id)).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ referrerUserId: inviter.id, status: "completed" });
    expect(
      db.select().from(referrals).where(eq(referrals.referrerUserId, inviter.id)).all(),
    ).toHaveLength(1);
    expect(
      db.select().from(referrals).where(eq(referrals.inviteeUserId, unknown.id)).all(),
    ).toEqual([]);
  });

  test("a malformed or over-long ref is dropped by the sign-up form, not refused", () => {
    const base = {
      firstName: "A",
      lastName: "B",
      email: "a@example.com",
      password: "long enough password",
      timeZone: "UTC",
    };
    expect(SignupSchema.parse({ ...base, ref: "x".repeat(40) }).ref).toBeUndefined();
    expect(SignupSchema.parse({ ...base, ref: "<script>" }).ref).toBeUndefined();
    expect(SignupSchema.parse({ ...base, ref: " abc234 " }).ref).toBe("ABC234");
  });
});
