import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { sessions, users } from "#db/schema";
import { resetPassword } from "~/modules/accounts/accounts.server";
import { db } from "~/platform/db.server";
import { findOrCreateOAuthUser, verifyLogin } from "./auth.server";
import { hashPassword, verifyPassword } from "./password.server";
import { createSession, hashToken } from "./session.server";

/** A hash as the app made them before the cost was raised: scrypt N=2^14, r=8, p=1. */
function legacyHash(password: string) {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(password, salt, 64, { N: 16384, r: 8, p: 1 });
  return ["scrypt", 16384, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$");
}

function logInForm(email: string, password: string) {
  const form = new FormData();
  form.set("email", email);
  form.set("password", password);
  return form;
}

describe("verifyLogin", () => {
  test("replaces a hash made with the old, cheaper settings at the next successful log-in", async () => {
    const email = "legacy-hash@example.com";
    db.insert(users)
      .values({ email, emailVerified: true, passwordHash: legacyHash("old but right") })
      .run();
    const request = new Request("http://localhost:3000/login", { method: "POST" });
    await verifyLogin(request, logInForm(email, "old but right"));
    const stored = db.select().from(users).where(eq(users.email, email)).get()!.passwordHash!;
    expect(stored.startsWith("scrypt$16384$8$5$")).toBe(true);
    expect(await verifyPassword("old but right", stored)).toBe(true);
  });
});

describe("linking a provider identity", () => {
  const request = new Request("http://localhost:3000/login", { method: "POST" });
  const identity = (email: string, emailVerified: boolean) => ({
    subject: `sub-${email}`,
    email,
    emailVerified,
    firstName: null,
    lastName: null,
  });
  const sessionsOf = (userId: number) =>
    db.select().from(sessions).where(eq(sessions.userId, userId)).all();

  test("to an account whose address was never verified removes its password and sessions", async () => {
    const email = "squatted@example.com";
    const squatter = createUser(db, {
      email,
      emailVerified: false,
      passwordHash: await hashPassword("squatter's"),
    });
    await createSession(squatter.id, request, "password");

    const owner = findOrCreateOAuthUser(identity(email, true));
    expect(owner.id).toBe(squatter.id);
    expect(owner.passwordHash).toBeNull();
    expect(owner.authProviderId).toBe(`sub-${email}`);
    expect(sessionsOf(squatter.id)).toHaveLength(0);
  });

  test("to a verified account keeps its password and sessions", async () => {
    const email = "verified-owner@example.com";
    const user = createUser(db, {
      email,
      emailVerified: true,
      passwordHash: await hashPassword("owner's"),
    });
    await createSession(user.id, request, "password");
    const linked = findOrCreateOAuthUser(identity(email, true));
    expect(linked.passwordHash).toBe(user.passwordHash);
    expect(sessionsOf(user.id)).toHaveLength(1);
  });

  test("made from an unverified address is removed by a password reset", async () => {
    const email = "claimed-at-provider@example.com";
    const created = findOrCreateOAuthUser(identity(email, false));
    expect(created.authProviderId).toBe(`sub-${email}`);
    const token = "reset-token-for-the-linking-test";
    db.update(users)
      .set({
        passwordResetToken: hashToken(token),
        passwordResetExpiresAt: new Date(Date.now() + 60_000),
      })
      .where(eq(users.id, created.id))
      .run();
    expect(await resetPassword(request, token, "the owner's new password")).toBe(true);
    const after = db.select().from(users).where(eq(users.id, created.id)).get()!;
    expect(after.authProviderId).toBeNull();
    expect(after.authProvider).toBe("password");
  });
});
