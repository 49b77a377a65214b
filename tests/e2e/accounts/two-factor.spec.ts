import crypto from "node:crypto";
import type { Page } from "@playwright/test";
import { and, eq } from "drizzle-orm";
import {
  recoveryCodes,
  securityEvents,
  sessions,
  twoFactorSecrets,
  userRoles,
  users,
} from "#db/schema";
import { expect, test } from "../fixtures";
import {
  addRecoveryCodes,
  confirmWithPassword,
  createUser,
  currentCode,
  enableTwoFactor,
  signIn,
  TEST_PASSWORD,
  testDb,
} from "../support/accounts";
import { linkIn, waitForMail } from "../support/mail";

function eventsOf(userId: number, eventType: (typeof securityEvents.$inferSelect)["eventType"]) {
  return testDb()
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.userId, userId), eq(securityEvents.eventType, eventType)))
    .all();
}

function sessionsOf(userId: number) {
  return testDb().select().from(sessions).where(eq(sessions.userId, userId)).all();
}

async function logInWithPassword(page: Page, email: string, password = TEST_PASSWORD) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log In" }).click();
}

async function expectCodeStep(page: Page) {
  await expect(page).toHaveURL(/\/login\/two-factor$/);
  await expect(page.getByRole("heading", { name: "Two-factor sign-in" })).toBeVisible();
}

async function enterCode(page: Page, code: string, { trust = false } = {}) {
  await page.getByLabel("Code", { exact: true }).fill(code);
  if (trust) await page.getByLabel("Trust this device for 30 days").check();
  await page.getByRole("button", { name: "Verify" }).click();
}

test.describe("two-factor sign-in", () => {
  test("set up from the profile: QR code, secret as text, first code, ten recovery codes", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login();
    await page.goto("/profile");
    await page.getByRole("link", { name: "Set up two-factor sign-in" }).click();
    await confirmWithPassword(page);
    await page.getByRole("button", { name: "Start set-up" }).click();
    await expect(
      page.getByRole("img", { name: "QR code for your authenticator app" }),
    ).toHaveAttribute("src", /^data:image\/svg\+xml;base64,/);
    // Shown in groups of four (docs/decisions/0130-set-ups-on-one-phone.md).
    const secret = (await page.getByTestId("totp-secret").innerText()).replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectAccessible();

    await page.getByLabel("Code from the app").fill("000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    await expect(page.getByText("That code is not valid")).toBeVisible();
    await expect(page.getByLabel("Code from the app")).toHaveValue("000000");
    expect(
      testDb().select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, user.id)).get()
        ?.enabledAt,
    ).toBeNull();

    await page.getByLabel("Code from the app").fill(await currentCode(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
    await expect(codes).toHaveCount(10);
    const shown = await codes.allInnerTexts();
    const stored = testDb()
      .select()
      .from(recoveryCodes)
      .where(eq(recoveryCodes.userId, user.id))
      .all();
    expect(stored).toHaveLength(10);
    for (const row of stored) expect(shown).not.toContain(row.codeHash);
    expect(eventsOf(user.id, "two_factor_enrolled")).toHaveLength(1);

    await page.getByRole("link", { name: "Done" }).click();
    await expect(page.getByRole("link", { name: "Manage two-factor sign-in" })).toBeVisible();
    // Shown once: the set-up page now offers only to manage it.
    await page.goto("/profile/two-factor");
    await expect(page.getByRole("list", { name: "Recovery codes" })).toHaveCount(0);
    await expect(page.getByText("10 recovery codes left")).toBeVisible();
  });

  test("log-in asks for a code before any session exists; a wrong code is refused", async ({
    page,
  }) => {
    const user = await createUser();
    const secret = await enableTwoFactor(user.id);
    // Without the password step there is nothing to do here.
    await page.goto("/login/two-factor");
    await expect(page).toHaveURL(/\/login$/);

    await logInWithPassword(page, user.email);
    await expectCodeStep(page);
    expect(sessionsOf(user.id)).toEqual([]);
    await page.goto("/profile");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile$/);

    await logInWithPassword(page, user.email);
    await expectCodeStep(page);
    await enterCode(page, "123456");
    await expect(page.getByText("That code is not valid")).toBeVisible();
    await expect(page.getByLabel("Code", { exact: true })).toHaveValue("123456");
    expect(sessionsOf(user.id)).toEqual([]);
    expect(eventsOf(user.id, "two_factor_failed")).toHaveLength(1);

    await enterCode(page, await currentCode(secret));
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    expect(sessionsOf(user.id).map((session) => session.signInMethod)).toEqual(["totp"]);
  });

  test("a recovery code signs in once and is gone", async ({ page, context }) => {
    const user = await createUser();
    await enableTwoFactor(user.id);
    addRecoveryCodes(user.id, ["abcd-efgh-jkmn", "pqrs-tuvw-xyz2"]);

    await logInWithPassword(page, user.email);
    await expectCodeStep(page);
    await enterCode(page, "ABCD-EFGH-JKMN");
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    await expect(page.getByText("You used a recovery code")).toBeVisible();
    expect(sessionsOf(user.id).map((session) => session.signInMethod)).toEqual(["recovery-code"]);
    expect(
      testDb().select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id)).all(),
    ).toHaveLength(1);
    expect(eventsOf(user.id, "recovery_code_used")).toHaveLength(1);

    await context.clearCookies();
    await logInWithPassword(page, user.email);
    await expectCodeStep(page);
    await enterCode(page, "abcd-efgh-jkmn");
    await expect(page.getByText("That code is not valid")).toBeVisible();
  });

  test("wrong codes are throttled: after five, even the right code waits", async ({ page }) => {
    const user = await createUser();
    const secret = await enableTwoFactor(user.id);
    await logInWithPassword(page, user.email);
    await expectCodeStep(page);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await enterCode(page, String(100000 + attempt));
      await expect(page.getByText("That code is not valid")).toBeVisible();
    }
    await enterCode(page, await currentCode(secret));
    await expect(page.getByRole("alert")).toContainText("Too many wrong codes");
    expect(sessionsOf(user.id)).toEqual([]);
    expect(
      eventsOf(user.id, "rate_limit_exceeded").filter(
        (event) => event.details?.reason === "second_factor_throttled",
      ),
    ).toHaveLength(1);
  });

  test("a trusted device skips the code for the next log-in", async ({ page }) => {
    const user = await createUser();
    const secret = await enableTwoFactor(user.id);
    await logInWithPassword(page, user.email);
    await expectCodeStep(page);
    await enterCode(page, await currentCode(secret), { trust: true });
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();

    // The session ends (as signing out would); the trust cookie stays.
    testDb().delete(sessions).where(eq(sessions.userId, user.id)).run();
    await logInWithPassword(page, user.email);
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    // Skipping the code does not make it a second-factor session.
    expect(sessionsOf(user.id).map((session) => session.signInMethod)).toEqual(["password"]);
  });

  test("a password reset keeps the second factor", async ({ page }) => {
    const user = await createUser();
    await enableTwoFactor(user.id);
    const token = crypto.randomBytes(32).toString("base64url");
    testDb()
      .update(users)
      .set({
        passwordResetToken: crypto.createHash("sha256").update(token).digest("hex"),
        passwordResetExpiresAt: new Date(Date.now() + 60 * 60 * 1000),
      })
      .where(eq(users.id, user.id))
      .run();
    await page.goto(`/reset-password?token=${token}`);
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByLabel("Confirm password").fill("a brand new password");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page.getByRole("heading", { name: "Password updated" })).toBeVisible();

    await logInWithPassword(page, user.email, "a brand new password");
    await expectCodeStep(page);
    expect(sessionsOf(user.id)).toEqual([]);
  });

  test("turning it off asks for a current code", async ({ page, context, baseURL }) => {
    const user = await createUser();
    const secret = await enableTwoFactor(user.id);
    await signIn(context, user.id, baseURL!);
    await page.goto("/profile");
    await page.getByRole("link", { name: "Manage two-factor sign-in" }).click();
    await page.getByLabel("Code to turn off").fill("000000");
    await page.getByRole("button", { name: "Turn off two-factor sign-in" }).click();
    await expect(page.getByText("That code is not valid")).toBeVisible();
    expect(
      testDb().select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, user.id)).all(),
    ).toHaveLength(1);

    await page.getByLabel("Code to turn off").fill(await currentCode(secret));
    await page.getByRole("button", { name: "Turn off two-factor sign-in" }).click();
    await expect(page.getByText("Two-factor sign-in is off")).toBeVisible();
    await expect(page.getByRole("link", { name: "Set up two-factor sign-in" })).toBeVisible();
    expect(
      testDb().select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, user.id)).all(),
    ).toEqual([]);
    expect(eventsOf(user.id, "two_factor_disabled")).toHaveLength(1);
  });

  test("an admin without a second factor is sent to set it up before any admin page opens", async ({
    page,
    context,
    baseURL,
  }) => {
    const admin = await createUser({ firstName: "Grace", lastName: "Admin" });
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    await signIn(context, admin.id, baseURL!);
    for (const path of ["/admin/dashboard", "/admin/security"]) {
      await page.goto(path);
      await expect(page).toHaveURL(
        /\/reauthenticate\?redirectTo=%2Fprofile%2Ftwo-factor&by=email$/,
      );
      await expect(page.getByText("Admins need two-factor sign-in")).toBeVisible();
    }

    // A password alone never leads to admin: the first second factor is confirmed from the mailbox.
    await expect(page.getByLabel("Password", { exact: true })).toHaveCount(0);
    await page.getByRole("button", { name: "E-mail me a link" }).click();
    await page.goto(
      linkIn(await waitForMail(admin.email, /Confirm it is you/), "/reauthenticate/email"),
    );
    await page.getByRole("button", { name: "Confirm it is me" }).click();
    await expect(page).toHaveURL(/\/profile\/two-factor$/);
    await page.getByRole("button", { name: "Start set-up" }).click();
    // Shown in groups of four (docs/decisions/0130-set-ups-on-one-phone.md).
    const secret = (await page.getByTestId("totp-secret").innerText()).replace(/\s/g, "");
    await page.getByLabel("Code from the app").fill(await currentCode(secret));
    await page.getByRole("button", { name: "Turn on" }).click();
    const codes = page.getByRole("list", { name: "Recovery codes" });
    await expect(codes).toBeVisible();
    const recoveryCode = (await codes.getByRole("listitem").first().innerText()).trim();

    // Enrolling does not raise the session it happened in: it was signed in with a password.
    await page.goto("/admin/security");
    await expect(page).toHaveURL(/\/login\/step-up\?redirectTo=%2Fadmin%2Fsecurity$/);
    expect(sessionsOf(admin.id).map((session) => session.signInMethod)).toEqual(["password"]);
    await page.getByLabel("Code", { exact: true }).fill(recoveryCode);
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Security Dashboard" })).toBeVisible();
    await expect(page.getByText("Two-factor set-ups")).toBeVisible();
    expect(sessionsOf(admin.id).map((session) => session.signInMethod)).toEqual(["recovery-code"]);
  });

  test("an admin's session from before enrolment, or on a trusted device, does not open admin pages", async ({
    page,
    context,
    baseURL,
  }) => {
    const admin = await createUser();
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    const secret = await enableTwoFactor(admin.id);
    // A session made before sign-in methods were recorded.
    await signIn(context, admin.id, baseURL!);
    testDb()
      .update(sessions)
      .set({ signInMethod: null })
      .where(eq(sessions.userId, admin.id))
      .run();
    await page.goto("/admin/dashboard");
    await expect(page).toHaveURL(/\/login\/step-up\?redirectTo=%2Fadmin%2Fdashboard$/);

    // Log in with the code and trust the device: that session opens admin pages...
    await context.clearCookies();
    await logInWithPassword(page, admin.email);
    await expectCodeStep(page);
    await enterCode(page, await currentCode(secret), { trust: true });
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    await page.goto("/admin/dashboard");
    await expect(page.getByRole("heading", { level: 1, name: "Admin Dashboard" })).toBeVisible();

    // ...but the next log-in on the trusted device, with the password alone, does not.
    const trust = (await context.cookies()).filter((cookie) => cookie.name.includes("2fa_trust"));
    await context.clearCookies();
    await context.addCookies(trust);
    await logInWithPassword(page, admin.email);
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    await page.goto("/admin/dashboard");
    await expect(page).toHaveURL(/\/login\/step-up\?redirectTo=%2Fadmin%2Fdashboard$/);
    await expect(
      page.getByText("Sign in again with your second factor to open the admin pages."),
    ).toBeVisible();
  });
});
