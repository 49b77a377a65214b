import fs from "node:fs";
import { eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import {
  apiTokens,
  folders,
  passkeys,
  referralCodes,
  referrals,
  securityEvents,
  sessions,
  users,
} from "#db/schema";
import { verifyPassword } from "~/modules/auth/password.server";
import { hashToken } from "~/modules/auth/session.server";
import { localParts, nextSendAt } from "~/modules/folders/schedule.server";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import {
  deleteAccount,
  passkeysOfResetToken,
  requestPasswordReset,
  resetPassword,
  signUp,
  updateProfile,
  verifyEmailToken,
} from "./accounts.server";

const request = new Request("http://localhost:3000/reset-password", { method: "POST" });

/** The token inside the newest outbox message to `to` that links to `path`. */
async function tokenFromOutbox(to: string, path: string) {
  await waitForBackgroundWork();
  const pattern = new RegExp(`${path}\\?token=([A-Za-z0-9_-]+)`);
  for (const file of fs.readdirSync(env.OUTBOX_DIR).sort().reverse()) {
    const mail = await simpleParser(fs.readFileSync(`${env.OUTBOX_DIR}/${file}`));
    const match = pattern.exec(mail.text ?? "");
    const addressed = [mail.to].flat().some((address) => address?.text.includes(to));
    if (match && addressed) return match[1]!;
  }
  throw new Error(`no ${path} link in the outbox`);
}

function newUser(email: string) {
  return signUp({
    firstName: "Ada",
    lastName: "Lovelace",
    email,
    password: "long enough password",
    timeZone: "Europe/London",
  });
}

describe("sign-up and verification", () => {
  test("stores a hashed password and only the hash of the e-mailed token", async () => {
    const createdId = await newUser("ada@example.com");
    const token = await tokenFromOutbox("ada@example.com", "/verify-email");
    const user = db.select().from(users).where(eq(users.email, "ada@example.com")).get()!;
    expect(createdId).toBe(user.id);
    expect(user.timeZone).toBe("Europe/London");
    expect(await verifyPassword("long enough password", user.passwordHash!)).toBe(true);
    expect(user.emailVerificationToken).toBe(hashToken(token));
    expect(verifyEmailToken(token)).toMatchObject({ id: user.id, emailVerified: true });
    expect(verifyEmailToken(token)).toBeNull();
  });

  test("an expired verification token is refused", async () => {
    await newUser("late@example.com");
    const token = await tokenFromOutbox("late@example.com", "/verify-email");
    db.update(users)
      .set({ emailVerificationExpiresAt: new Date(Date.now() - 1) })
      .where(eq(users.email, "late@example.com"))
      .run();
    expect(verifyEmailToken(token)).toBeNull();
  });

  test("signing up again with a known address creates nothing", async () => {
    expect(await newUser("twice@example.com")).not.toBeNull();
    expect(await newUser("twice@example.com")).toBeNull();
    expect(db.select().from(users).where(eq(users.email, "twice@example.com")).all()).toHaveLength(
      1,
    );
  });

  test("a referral code records a pending referral that completes on verification", async () => {
    await newUser("referrer@example.com");
    const referrer = db.select().from(users).where(eq(users.email, "referrer@example.com")).get()!;
    db.insert(referralCodes).values({ userId: referrer.id, code: "FRIEND1" }).run();
    await signUp({
      firstName: "In",
      lastName: "Vitee",
      email: "invitee@example.com",
      password: "long enough password",
      timeZone: "UTC",
      ref: "FRIEND1",
    });
    const [pending] = db.select().from(referrals).all();
    expect(pending?.status).toBe("pending");
    expect(
      verifyEmailToken(await tokenFromOutbox("invitee@example.com", "/verify-email")),
    ).not.toBeNull();
    expect(db.select().from(referrals).get()?.status).toBe("completed");
  });

  test("an unknown referral code does not block sign-up", async () => {
    await signUp({
      firstName: "No",
      lastName: "Code",
      email: "nocode@example.com",
      password: "long enough password",
      timeZone: "UTC",
      ref: "NOPE",
    });
    expect(
      db.select().from(users).where(eq(users.email, "nocode@example.com")).get(),
    ).toBeDefined();
  });
});

describe("password reset", () => {
  test("works once, within the hour, and ends every session", async () => {
    await newUser("reset@example.com");
    const user = db.select().from(users).where(eq(users.email, "reset@example.com")).get()!;
    db.insert(sessions)
      .values({ sid: "a", userId: user.id, expire: new Date(Date.now() + 60_000) })
      .run();
    requestPasswordReset("reset@example.com");
    const token = await tokenFromOutbox("reset@example.com", "/reset-password");
    expect(await resetPassword(request, token, "a new password")).toBe(true);
    expect(await resetPassword(request, token, "another password")).toBe(false);
    const updated = db.select().from(users).where(eq(users.id, user.id)).get()!;
    expect(await verifyPassword("a new password", updated.passwordHash!)).toBe(true);
    expect(db.select().from(sessions).where(eq(sessions.userId, user.id)).all()).toEqual([]);
    expect(
      db.select().from(securityEvents).where(eq(securityEvents.eventType, "password_reset")).all(),
    ).toHaveLength(1);
  });

  test("evicts everyone: every API token, the security stamp, and the passkeys not kept", async () => {
    await newUser("evict@example.com");
    const user = db.select().from(users).where(eq(users.email, "evict@example.com")).get()!;
    db.insert(apiTokens)
      .values({ userId: user.id, name: "Script", tokenHash: "evict-token", scope: "write" })
      .run();
    const passkey = (id: string, name: string) => ({
      id,
      userId: user.id,
      publicKey: "key",
      name,
    });
    db.insert(passkeys)
      .values([
        passkey("kept", "My phone"),
        passkey("ticked", "Laptop"),
        passkey("unlisted", "New"),
      ])
      .run();
    requestPasswordReset("evict@example.com");
    const token = await tokenFromOutbox("evict@example.com", "/reset-password");
    // The form listed "kept" and "ticked" and the owner unticked "kept"; "unlisted"
    // was added after the form was shown, so nobody chose to keep it.
    expect(
      await resetPassword(request, token, "a new password", { keepPasskeyIds: ["kept"] }),
    ).toBe(true);
    const after = db.select().from(users).where(eq(users.id, user.id)).get()!;
    expect(after.securityStamp).not.toBe(user.securityStamp);
    expect(db.select().from(apiTokens).where(eq(apiTokens.userId, user.id)).all()).toEqual([]);
    expect(
      db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, user.id)).all(),
    ).toEqual([{ id: "kept" }]);
    await waitForBackgroundWork();
    const notices = [];
    for (const file of fs.readdirSync(env.OUTBOX_DIR)) {
      const mail = await simpleParser(fs.readFileSync(`${env.OUTBOX_DIR}/${file}`));
      if (
        mail.subject === "Your password was reset" &&
        mail.text?.replace(/\s+/g, " ").includes("2 passkeys were removed")
      ) {
        notices.push(mail);
      }
    }
    expect(notices).toHaveLength(1);
  });

  test("an expired token is refused", async () => {
    await newUser("expired@example.com");
    requestPasswordReset("expired@example.com");
    const token = await tokenFromOutbox("expired@example.com", "/reset-password");
    db.update(users)
      .set({ passwordResetExpiresAt: new Date(Date.now() - 1) })
      .where(eq(users.email, "expired@example.com"))
      .run();
    expect(await resetPassword(request, token, "a new password")).toBe(false);
  });

  test("a live link lists the passkeys; a spent or unknown one is dead before anything is typed", async () => {
    await newUser("spent@example.com");
    requestPasswordReset("spent@example.com");
    const token = await tokenFromOutbox("spent@example.com", "/reset-password");
    expect(passkeysOfResetToken(token)).toEqual([]);
    expect(await resetPassword(request, token, "a new password")).toBe(true);
    expect(passkeysOfResetToken(token)).toBeNull();
    expect(passkeysOfResetToken("never-issued")).toBeNull();
  });
});

test("deleting an account removes the user and what they own", async () => {
  await newUser("gone@example.com");
  const user = db.select().from(users).where(eq(users.email, "gone@example.com")).get()!;
  db.insert(sessions).values({ sid: "gone", userId: user.id, expire: new Date() }).run();
  await deleteAccount(user.id);
  expect(db.select().from(users).where(eq(users.id, user.id)).get()).toBeUndefined();
  expect(db.select().from(sessions).where(eq(sessions.userId, user.id)).all()).toEqual([]);
});

describe("updateProfile", () => {
  function userWithWeeklyFolder(email: string, timeZone: string) {
    const user = createUser(db, { email, timeZone });
    const folder = createFolder(db, user.id, {
      name: "Weekly",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
      frequency: "weekly",
      dayOfWeek: 1,
      nextSendAt: nextSendAt(weeklyOnMonday, timeZone, new Date(), null),
    });
    return { user, folder };
  }
  const weeklyOnMonday = { frequency: "weekly", dayOfWeek: 1, dayOfMonth: null } as const;
  const storedZone = (id: number) =>
    db.select().from(users).where(eq(users.id, id)).get()!.timeZone;
  const nextSend = (id: number) =>
    db.select().from(folders).where(eq(folders.id, id)).get()!.nextSendAt;

  test("saving a name leaves a UTC account and its deliveries where they were", () => {
    const { user, folder } = userWithWeeklyFolder("utc-stays@example.com", "UTC");
    updateProfile(user.id, {
      firstName: "New",
      lastName: "Name",
      timeZone: "Africa/Abidjan",
      timeZoneShown: "Africa/Abidjan",
    });
    expect(storedZone(user.id)).toBe("UTC");
    expect(nextSend(folder.id)).toEqual(folder.nextSendAt);
  });

  test("a zone the person picked is saved and moves each delivery to 00:01 there", () => {
    const { user, folder } = userWithWeeklyFolder("moves@example.com", "UTC");
    updateProfile(user.id, {
      firstName: "Ada",
      lastName: "Lovelace",
      timeZone: "Asia/Tokyo",
      timeZoneShown: "UTC",
    });
    expect(storedZone(user.id)).toBe("Asia/Tokyo");
    const moved = nextSend(folder.id)!;
    expect(localParts(moved, "Asia/Tokyo")).toMatchObject({ hour: 0, minute: 1 });
    expect(moved).not.toEqual(folder.nextSendAt);
  });
});
