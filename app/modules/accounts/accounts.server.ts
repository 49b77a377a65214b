import { and, eq, gt, isNotNull, notInArray } from "drizzle-orm";
import { createElement } from "react";
import {
  apiTokens,
  contentItems,
  folders,
  passkeys,
  referralCodes,
  referrals,
  uploadDrafts,
  users,
} from "#db/schema";
import type { Transaction, User } from "#db/types";
import { AccountExists, accountExistsSubject } from "#emails/account-exists";
import { renderEmail } from "#emails/render.server";
import { ResetPassword, resetPasswordSubject } from "#emails/reset-password";
import { VerifyEmail, verifyEmailSubject } from "#emails/verify-email";
import { noticeCredentialChange } from "~/modules/auth/credential-notices.server";
import { clearLoginAttempts } from "~/modules/auth/login-throttle.server";
import { listPasskeys } from "~/modules/auth/passkeys.server";
import { hashPassword } from "~/modules/auth/password.server";
import { hashToken, randomToken, revokeUserSessions } from "~/modules/auth/session.server";
import { itemFileKeys, releaseFiles } from "~/modules/files/stored-files.server";
import { nextSendAt } from "~/modules/folders/schedule.server";
import { runInBackground } from "~/platform/background-work.server";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { sendEmail } from "~/platform/mailer.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { zoneAfterProfileSave } from "./time-zones.server";

const HOUR_MS = 60 * 60 * 1000;
export const VERIFICATION_TTL_MS = 24 * HOUR_MS;
export const RESET_TTL_MS = HOUR_MS;

/**
 * Account life cycle: sign-up, e-mail verification, password reset, profile
 * and deletion. Tokens sent by e-mail are random; only their SHA-256 is stored,
 * and each one works once, until it expires.
 */
type SignupInput = {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  timeZone: string;
  ref?: string;
};

async function sendVerificationEmail(user: { email: string; firstName: string | null }) {
  const token = randomToken();
  db.update(users)
    .set({
      emailVerificationToken: hashToken(token),
      emailVerificationExpiresAt: new Date(Date.now() + VERIFICATION_TTL_MS),
    })
    .where(eq(users.email, user.email))
    .run();
  const verifyUrl = `${env.APP_URL}/verify-email?token=${encodeURIComponent(token)}`;
  const { html, text } = renderEmail(
    createElement(VerifyEmail, { firstName: user.firstName, verifyUrl }),
  );
  await sendEmail({ to: user.email, subject: verifyEmailSubject, html, text });
}

/**
 * Creates the account and sends the verification e-mail. When the address
 * already has an account, its owner gets a note instead and the caller sees
 * exactly the same outcome, so sign-up never reveals who has an account.
 * Returns the new account's id, or null when none was created (for the
 * sign-up proof, which looks the same either way: ./sign-up-proof.server.ts).
 */
export async function signUp(input: SignupInput): Promise<number | null> {
  // Hashed whether or not the account exists, so both answers take as long.
  const passwordHash = await hashPassword(input.password);
  const existing = db.select().from(users).where(eq(users.email, input.email)).get();
  if (existing) {
    const { html, text } = renderEmail(
      createElement(AccountExists, {
        firstName: existing.firstName,
        loginUrl: `${env.APP_URL}/login`,
        resetUrl: `${env.APP_URL}/forgot-password`,
      }),
    );
    runInBackground("account-exists e-mail", () =>
      sendEmail({ to: existing.email, subject: accountExistsSubject, html, text }),
    );
    return null;
  }
  const created = writeTransaction((tx) => {
    const user = tx
      .insert(users)
      .values({
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        passwordHash,
        timeZone: input.timeZone,
      })
      .onConflictDoNothing()
      .returning()
      .get();
    if (user && input.ref) recordPendingReferral(tx, user.id, input.ref);
    return user;
  });
  if (!created) return null;
  runInBackground("verification e-mail", () => sendVerificationEmail(created));
  return created.id;
}

/** A code that is unknown or the invitee's own gives nothing and never blocks sign-up. */
function recordPendingReferral(tx: Transaction, inviteeUserId: number, code: string) {
  const owner = tx.select().from(referralCodes).where(eq(referralCodes.code, code)).get();
  if (!owner || owner.userId === inviteeUserId) return;
  tx.insert(referrals)
    .values({ referrerUserId: owner.userId, inviteeUserId, referralCode: code })
    .onConflictDoNothing()
    .run();
}

/** Verifies the address of the token's account; returns that account, or null for a token that is unknown, used or expired. */
export function verifyEmailToken(token: string): User | null {
  return writeTransaction((tx) => {
    const user = tx
      .select()
      .from(users)
      .where(
        and(
          eq(users.emailVerificationToken, hashToken(token)),
          gt(users.emailVerificationExpiresAt, new Date()),
        ),
      )
      .get();
    if (!user) return null;
    const verified = tx
      .update(users)
      .set({ emailVerified: true, emailVerificationToken: null, emailVerificationExpiresAt: null })
      .where(eq(users.id, user.id))
      .returning()
      .get();
    tx.update(referrals)
      .set({ status: "completed", completedAt: new Date() })
      .where(and(eq(referrals.inviteeUserId, user.id), eq(referrals.status, "pending")))
      .run();
    return verified ?? null;
  });
}

/**
 * Sends a fresh link when the address has an unverified account; silent
 * otherwise. Sending happens after the answer, so timing tells nothing either.
 */
export function resendVerification(email: string) {
  const user = db.select().from(users).where(eq(users.email, email)).get();
  if (user && !user.emailVerified) {
    runInBackground("verification e-mail", () => sendVerificationEmail(user));
  }
}

/** Sends a reset link when the address has an account; the caller's answer is the same either way. */
export function requestPasswordReset(email: string) {
  const user = db.select().from(users).where(eq(users.email, email)).get();
  if (!user) return;
  const token = randomToken();
  db.update(users)
    .set({
      passwordResetToken: hashToken(token),
      passwordResetExpiresAt: new Date(Date.now() + RESET_TTL_MS),
    })
    .where(eq(users.id, user.id))
    .run();
  const resetUrl = `${env.APP_URL}/reset-password?token=${encodeURIComponent(token)}`;
  const { html, text } = renderEmail(
    createElement(ResetPassword, { firstName: user.firstName, resetUrl }),
  );
  runInBackground("password reset e-mail", () =>
    sendEmail({ to: user.email, subject: resetPasswordSubject, html, text }),
  );
}

function userOfResetToken(tx: Pick<typeof db, "select">, token: string) {
  return tx
    .select()
    .from(users)
    .where(
      and(
        eq(users.passwordResetToken, hashToken(token)),
        gt(users.passwordResetExpiresAt, new Date()),
      ),
    )
    .get();
}

/**
 * The passkeys the reset form lists (reading the link changes nothing), or
 * null for a used, expired or unknown link, so the page says so before a
 * password is typed.
 */
export function passkeysOfResetToken(token: string) {
  const user = userOfResetToken(db, token);
  return user ? listPasskeys(user.id) : null;
}

/**
 * Sets the new password, spends the token, and evicts everyone else: every
 * session, every API token and every trusted device end (the security stamp
 * changes), and every passkey goes except those the owner chose to keep on
 * the form. A provider link the unverified account had is removed, its
 * failed log-ins are cleared (whoever ran them up cannot keep the owner
 * out), and the owner is told. docs/decisions/0108-password-reset-evicts-everyone.md.
 */
export async function resetPassword(
  request: Request,
  token: string,
  password: string,
  { keepPasskeyIds = [] }: { keepPasskeyIds?: string[] } = {},
) {
  const passwordHash = await hashPassword(password);
  const reset = writeTransaction((tx) => {
    const user = userOfResetToken(tx, token);
    if (!user) return null;
    tx.update(users)
      .set({
        passwordHash,
        passwordResetToken: null,
        passwordResetExpiresAt: null,
        securityStamp: randomToken(),
        // A provider link made while the address was unverified was never
        // vouched for; the owner who just proved the address drops it.
        ...(user.emailVerified ? {} : { authProvider: "password", authProviderId: null }),
      })
      .where(eq(users.id, user.id))
      .run();
    tx.delete(apiTokens).where(eq(apiTokens.userId, user.id)).run();
    const passkeysRemoved = tx
      .delete(passkeys)
      .where(and(eq(passkeys.userId, user.id), notInArray(passkeys.id, keepPasskeyIds)))
      .run().changes;
    return { user, passkeysRemoved };
  });
  if (reset === null) return false;
  const { user, passkeysRemoved } = reset;
  revokeUserSessions(user.id);
  await clearLoginAttempts(user.email);
  recordSecurityEvent(request, {
    eventType: "password_reset",
    severity: "medium",
    userId: user.id,
    details: { sessionsRevoked: true, apiTokensRevoked: true, passkeysRemoved },
  });
  await noticeCredentialChange(request, user, { kind: "password-reset", passkeysRemoved });
  return true;
}

/**
 * Saves the name and, only when the person picked another one, the time zone
 * (see zoneAfterProfileSave). A new zone moves every scheduled folder's next
 * delivery to 00:01 in it; paused folders are rescheduled when they resume.
 */
export function updateProfile(
  userId: number,
  values: { firstName: string; lastName: string; timeZone: string; timeZoneShown?: string },
) {
  writeTransaction((tx) => {
    const stored = tx
      .select({ timeZone: users.timeZone })
      .from(users)
      .where(eq(users.id, userId))
      .get();
    if (!stored) return;
    const timeZone = zoneAfterProfileSave(stored.timeZone, values.timeZoneShown, values.timeZone);
    tx.update(users)
      .set({ firstName: values.firstName, lastName: values.lastName, timeZone })
      .where(eq(users.id, userId))
      .run();
    if (timeZone === stored.timeZone) return;
    const now = new Date();
    const scheduled = tx
      .select()
      .from(folders)
      .where(
        and(eq(folders.userId, userId), eq(folders.isPaused, false), isNotNull(folders.nextSendAt)),
      )
      .all();
    for (const folder of scheduled) {
      tx.update(folders)
        // Every delivery's instant moves with the zone: a skip (docs/decisions/0213-skip-the-next-issue.md) ends.
        .set({
          nextSendAt: nextSendAt(
            { ...folder, skippedSendAt: null },
            timeZone,
            now,
            folder.lastSentAt,
          ),
          skippedSendAt: null,
        })
        .where(eq(folders.id, folder.id))
        .run();
    }
  });
}

/**
 * Removes the account: the cascade takes sessions, folders, items, roles and
 * delivery records with it; then the stored files those items referred to.
 */
export async function deleteAccount(userId: number) {
  const fileKeys = writeTransaction((tx) => {
    const keys = tx
      .select({
        filePaths: contentItems.filePaths,
        thumbnailPaths: contentItems.thumbnailPaths,
        previewImageKey: contentItems.previewImageKey,
      })
      .from(contentItems)
      .innerJoin(folders, eq(folders.id, contentItems.folderId))
      .where(eq(folders.userId, userId))
      .all()
      .flatMap(itemFileKeys);
    const draftKeys = tx
      .select({ files: uploadDrafts.files })
      .from(uploadDrafts)
      .where(eq(uploadDrafts.userId, userId))
      .all()
      .flatMap((draft) => draft.files.flatMap((file) => [file.key, file.thumbnailKey ?? ""]));
    tx.delete(users).where(eq(users.id, userId)).run();
    return [...keys, ...draftKeys].filter(Boolean);
  });
  await releaseFiles(fileKeys);
}
