import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { referralCodes } from "#db/schema";
import { LIMITS } from "~/modules/plans/limits";
import { referralBonus } from "~/modules/plans/quota.server";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";

/**
 * "Invite friends, get folders" (docs/product-rules.md, "Tiers and limits"):
 * each user has at most one code, made when they first ask for it (a POST: a
 * GET never changes anything). Sign-up records a pending referral and e-mail
 * verification completes it (app/modules/accounts/accounts.server.ts); the bonus itself is
 * counted by `getUsage`.
 */

/** No 0/O, 1/I/L: codes are read aloud and typed from paper too. */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 8;

export function generateReferralCode(random: (size: number) => Buffer = crypto.randomBytes) {
  const bytes = random(CODE_LENGTH);
  let code = "";
  for (const byte of bytes) code += ALPHABET[byte % ALPHABET.length];
  return code;
}

/** A code as typed or pasted: trimmed, upper-cased; null when it cannot be one of ours. */
export function normalizeReferralCode(value: string | null | undefined): string | null {
  const code = (value ?? "").trim().toUpperCase();
  if (code.length === 0 || code.length > LIMITS.referral.codeMaxLength) return null;
  return /^[A-Z0-9]+$/.test(code) ? code : null;
}

export function getReferralCode(userId: number): string | null {
  return (
    db
      .select({ code: referralCodes.code })
      .from(referralCodes)
      .where(eq(referralCodes.userId, userId))
      .get()?.code ?? null
  );
}

/** The user's code, created on the first call; later calls return the same one. */
export function ensureReferralCode(
  userId: number,
  generate: () => string = () => generateReferralCode(),
): string {
  return writeTransaction((tx) => {
    const existing = tx
      .select({ code: referralCodes.code })
      .from(referralCodes)
      .where(eq(referralCodes.userId, userId))
      .get();
    if (existing) return existing.code;
    for (let attempt = 0; attempt < 10; attempt++) {
      const code = generate();
      const created = tx
        .insert(referralCodes)
        .values({ userId, code })
        .onConflictDoNothing()
        .returning({ code: referralCodes.code })
        .get();
      if (created) return created.code;
    }
    throw new Error("Could not find a free referral code");
  });
}

export function referralLink(code: string, appUrl = env.APP_URL) {
  return `${appUrl}/signup?ref=${encodeURIComponent(code)}`;
}

export type ReferralStats = {
  referralCode: string | null;
  completedReferrals: number;
  bonusFolders: number;
  bonusStorageBytes: number;
};

/** The invite page's referral stats (docs/product-rules.md, Folders and items), from the usage already computed for the page. */
export function referralStats(
  userId: number,
  usage: { bonus: { completedReferrals: number } },
): ReferralStats {
  const bonus = referralBonus(usage.bonus.completedReferrals);
  return {
    referralCode: getReferralCode(userId),
    completedReferrals: bonus.completedReferrals,
    bonusFolders: bonus.folders,
    bonusStorageBytes: bonus.storageBytes,
  };
}
