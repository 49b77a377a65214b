import type { BrowserContext, Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { passkeys, sessions, userRoles } from "#db/schema";
import { createSoftwarePasskey } from "#tests/support/software-passkey";
import { expect, test } from "../fixtures";
import {
  confirmWithPassword,
  createUser,
  enableTwoFactor,
  signIn,
  TEST_PASSWORD,
  testDb,
} from "../support/accounts";

function passkeysOf(userId: number) {
  return testDb().select().from(passkeys).where(eq(passkeys.userId, userId)).all();
}

function sessionsOf(userId: number) {
  return testDb().select().from(sessions).where(eq(sessions.userId, userId)).all();
}

/** Chromium's virtual authenticator: a platform passkey that verifies the user by itself. */
async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

test.describe("passkeys", () => {
  test("added from the profile, they sign in without password or code, and can be removed", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "WebAuthn is a browser call; the no-JavaScript test is below");
    await addVirtualAuthenticator(context, page);
    const user = await createUser();
    await enableTwoFactor(user.id);
    await signIn(context, user.id, baseURL!);

    await page.goto("/profile");
    // Adding a way in asks who you are first, then comes back here.
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await confirmWithPassword(page);
    await expect(page).toHaveURL(/\/profile$/);
    expect(passkeysOf(user.id)).toEqual([]);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByRole("region", { name: "Notifications" })).toContainText(
      "Passkey added",
    );
    await expect(page.getByText("No passkeys yet.")).toHaveCount(0);
    expect(passkeysOf(user.id)).toHaveLength(1);

    // Signed out, the passkey alone signs in, even though the account has authenticator codes.
    testDb().delete(sessions).where(eq(sessions.userId, user.id)).run();
    await page.goto("/login?redirectTo=%2Fprofile");
    await page.getByRole("button", { name: "Use a passkey", exact: true }).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole("heading", { name: "Profile Settings" })).toBeVisible();
    expect(sessionsOf(user.id).map((session) => session.signInMethod)).toEqual(["passkey"]);
    expect(passkeysOf(user.id)[0]?.lastUsedAt).toBeInstanceOf(Date);

    await page.getByRole("button", { name: /^Remove/ }).click();
    await expect(page.getByText("Passkey removed")).toBeVisible();
    expect(passkeysOf(user.id)).toEqual([]);

    // A removed passkey signs in no more.
    testDb().delete(sessions).where(eq(sessions.userId, user.id)).run();
    await page.goto("/login");
    await page.getByRole("button", { name: "Use a passkey", exact: true }).click();
    await expect(page.getByRole("alert")).toContainText("That passkey did not work");
    await expect(page).toHaveURL(/\/login$/);
  });

  test("without JavaScript the pages offer the other ways in", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    test.skip(javaScriptEnabled, "the JavaScript case is above");
    const user = await createUser();
    await page.goto("/login");
    await expect(page.getByRole("button", { name: "Use a passkey", exact: true })).toHaveCount(0);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    await signIn(context, user.id, baseURL!);
    await page.goto("/profile");
    await expect(
      page.getByText("Adding a passkey needs JavaScript in a browser that supports passkeys."),
    ).toBeVisible();
  });

  test("an admin on a password session confirms with a passkey to open the admin pages", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "WebAuthn is a browser call; without it the code form is tested");
    await addVirtualAuthenticator(context, page);
    const admin = await createUser({ firstName: "Grace", lastName: "Admin" });
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    await enableTwoFactor(admin.id);
    await signIn(context, admin.id, baseURL!);
    await page.goto("/profile");
    // Adding a passkey first asks who it is (the admin has a code, so the password will do).
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await confirmWithPassword(page);
    await expect(page).toHaveURL(/\/profile$/);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByRole("region", { name: "Notifications" })).toContainText(
      "Passkey added",
    );
    // Neither confirming nor adding a passkey raises the session they were done in.
    expect(sessionsOf(admin.id).map((session) => session.signInMethod)).toEqual(["password"]);

    await page.goto("/admin/security");
    await expect(page).toHaveURL(/\/login\/step-up\?redirectTo=%2Fadmin%2Fsecurity$/);
    await page.getByRole("button", { name: "Use a passkey instead" }).click();
    await expect(page).toHaveURL(/\/admin\/security$/);
    await expect(page.getByRole("heading", { level: 1, name: "Security Dashboard" })).toBeVisible();
    expect(sessionsOf(admin.id).map((session) => session.signInMethod)).toEqual(["passkey"]);
  });

  test("a captured passkey sign-in posted again is refused", async ({
    page,
    baseURL,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "one run is enough: the replay is an HTTP request");
    // A synced passkey's signature counter stays at 0, so only the server's
    // single-use challenge tells the replay from the real sign-in.
    const user = await createUser();
    const key = createSoftwarePasskey(baseURL!);
    testDb()
      .insert(passkeys)
      .values({ id: key.id, userId: user.id, publicKey: key.publicKey, name: "Synced" })
      .run();
    await page.goto("/login");
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const started = await page.request.post("/passkeys/sign-in", {
      form: { csrf, intent: "options" },
    });
    const { options } = (await started.json()) as { options: { challenge: string } };
    const body = {
      csrf,
      intent: "verify",
      response: JSON.stringify(key.signIn(options.challenge)),
      redirectTo: "/",
    };
    // What an eavesdropper of this one request holds: its cookies and its body.
    const cookieHeader = (await page.context().cookies())
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join("; ");
    const signedIn = await page.request.post("/passkeys/sign-in", { form: body });
    expect(signedIn.status()).toBe(200);
    expect(sessionsOf(user.id)).toHaveLength(1);

    const replayed = await fetch(`${baseURL}/passkeys/sign-in`, {
      method: "POST",
      headers: { Cookie: cookieHeader },
      body: new URLSearchParams(body),
    });
    expect(replayed.status).toBe(400);
    expect(sessionsOf(user.id)).toHaveLength(1);
  });
});
