import { eq } from "drizzle-orm";
import { passkeys, sessions } from "#db/schema";
import { expect, test } from "./fixtures";
import {
  confirmWithPassword,
  createUser,
  enableTwoFactor,
  signIn,
  TEST_PASSWORD,
  testDb,
} from "./support/accounts";

function passkeysOf(userId: number) {
  return testDb().select().from(passkeys).where(eq(passkeys.userId, userId)).all();
}

test.describe("passkeys", () => {
  test("added from the profile, they sign in without password or code, and can be removed", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "WebAuthn is a browser call; the no-JavaScript test is below");
    // Chromium's virtual authenticator: a platform passkey that verifies the user by itself.
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
    expect(testDb().select().from(sessions).where(eq(sessions.userId, user.id)).all()).toHaveLength(
      1,
    );
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
});
