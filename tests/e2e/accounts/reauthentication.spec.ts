import crypto from "node:crypto";
import type { BrowserContext, Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { apiTokens, passkeys, sessions, twoFactorSecrets, users } from "#db/schema";
import { expect, test } from "../fixtures";
import {
  confirmWithPassword,
  createFolderRow,
  createUser,
  currentCode,
  enableTwoFactor,
  forgetMailFromThisMachine,
  signIn,
  TEST_PASSWORD,
  testDb,
} from "../support/accounts";
import { linkIn, waitForMail } from "../support/mail";

/**
 * Issue 33, items 2 and 3: a session alone (a stolen cookie) cannot add a
 * way in; a password reset evicts everyone; the owner is told of every
 * change, with a link that undoes it; API tokens expire.
 */
const sha256 = (value: string) => crypto.createHash("sha256").update(value).digest("hex");

function tokensOf(userId: number) {
  return testDb().select().from(apiTokens).where(eq(apiTokens.userId, userId)).all();
}

/** A working API token of the user's, as the tokens page would have made it. */
function insertToken(userId: number, values: Partial<typeof apiTokens.$inferInsert> = {}) {
  const token = `tht_${crypto.randomBytes(24).toString("base64url")}`;
  testDb()
    .insert(apiTokens)
    .values({
      userId,
      name: "Script",
      scope: "write",
      tokenHash: sha256(token),
      expiresAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
      ...values,
    })
    .run();
  return token;
}

/** A reset link for the user, as "Forgot password" would have mailed it. */
function resetLink(userId: number) {
  const token = crypto.randomBytes(32).toString("base64url");
  testDb()
    .update(users)
    .set({
      passwordResetToken: sha256(token),
      passwordResetExpiresAt: new Date(Date.now() + 60 * 60 * 1000),
    })
    .where(eq(users.id, userId))
    .run();
  return `/reset-password?token=${token}`;
}

async function resetPasswordOnPage(page: Page, userId: number, password: string) {
  await page.goto(resetLink(userId));
  await page.getByLabel("New password").fill(password);
  await page.getByLabel("Confirm password").fill(password);
}

async function csrfTokenOf(page: Page) {
  return page.locator('input[name="csrf"]').first().inputValue();
}

async function logInWithPassword(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log In" }).click();
}

async function sessionCookieWorks(baseURL: string, context: BrowserContext) {
  const response = await context.request.get(`${baseURL}/profile`, { maxRedirects: 0 });
  return response.status() === 200;
}

test.describe("sensitive changes ask who you are again", () => {
  test("a stolen session cannot mint a token, set up two-factor or add a passkey", async ({
    page,
    login,
    baseURL,
    expectAccessible,
  }) => {
    const user = await login();
    await page.goto("/profile/tokens");
    await expect(page).toHaveURL(/\/reauthenticate\?redirectTo=%2Fprofile%2Ftokens$/);
    // The page names the change it guards, and the cursor waits in its one field.
    await expect(
      page.getByRole("heading", { level: 1, name: "Confirm it's you to create an API token" }),
    ).toBeVisible();
    await expect(page.getByLabel("Password", { exact: true })).toBeFocused();
    await expectAccessible();

    // Posting the forms directly changes nothing either.
    const csrf = await csrfTokenOf(page);
    const token = await page.request.post("/profile/tokens", {
      form: { csrf, intent: "create", name: "Attacker", scope: "write" },
      maxRedirects: 0,
    });
    expect(token.status()).toBe(302);
    expect(token.headers().location).toMatch(/^\/reauthenticate\?/);
    const twoFactor = await page.request.post("/profile/two-factor", {
      form: { csrf, intent: "start" },
      maxRedirects: 0,
    });
    expect(twoFactor.status()).toBe(302);
    const passkey = await page.request.post("/passkeys/register", {
      form: { csrf, intent: "options" },
    });
    expect(passkey.status()).toBe(403);
    expect(await passkey.json()).toMatchObject({ reauthenticate: expect.stringMatching(/^\//) });
    const deletion = await page.request.post("/profile/delete", {
      form: { csrf },
      maxRedirects: 0,
    });
    expect(deletion.status()).toBe(302);
    expect(tokensOf(user.id)).toEqual([]);
    expect(
      testDb().select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, user.id)).all(),
    ).toEqual([]);
    expect(testDb().select().from(users).where(eq(users.id, user.id)).get()).toBeDefined();

    // A wrong password is refused next to the field.
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await page.getByRole("button", { name: "Confirm with password" }).click();
    await expect(page.getByText("That password is not right.")).toBeVisible();

    // The owner, with the password, goes back to the form they were on.
    await confirmWithPassword(page);
    await expect(page).toHaveURL(/\/profile\/tokens$/);
    const form = page.getByRole("dialog", { name: "New API token" });
    await form.getByLabel("Name").fill("Mine");
    await form.getByRole("button", { name: "Create token" }).click();
    await expect(page.getByRole("dialog", { name: "Your new API token" })).toBeVisible();
    expect(tokensOf(user.id)).toMatchObject([{ name: "Mine" }]);

    // The proof belongs to that session: another session of the account is still asked.
    const other = await page.context().browser()!.newContext({ baseURL });
    try {
      await signIn(other, user.id, baseURL!);
      const otherPage = await other.newPage();
      await otherPage.goto("/profile/tokens");
      await expect(otherPage).toHaveURL(/\/reauthenticate\?/);
    } finally {
      await other.close();
    }
  });

  test("a current authenticator code confirms it too", async ({ page, login }) => {
    const user = await login();
    const secret = await enableTwoFactor(user.id);
    await page.goto("/profile/delete");
    await page.getByLabel("Code", { exact: true }).fill(await currentCode(secret));
    await page.getByRole("button", { name: "Confirm with code" }).click();
    await expect(page.getByRole("dialog", { name: "Are you absolutely sure?" })).toBeVisible();
  });

  test("an account without a password confirms by a link mailed to it, in this browser only", async ({
    page,
    login,
    browser,
    baseURL,
  }) => {
    const user = await login({ passwordHash: null, authProvider: "Example ID" });
    await page.goto("/profile/two-factor");
    await expect(page.getByRole("heading", { name: "Confirm it's you" })).toBeVisible();
    await expect(page.getByLabel("Password", { exact: true })).toHaveCount(0);
    await page.getByRole("button", { name: "E-mail me a link" }).click();
    await expect(page.getByRole("heading", { name: "Check your e-mail" })).toBeVisible();
    const link = linkIn(
      await waitForMail(user.email, /Confirm it is you/),
      "/reauthenticate/email",
    );

    // Opened in another browser of the account (or by a mail scanner), it proves nothing.
    const other = await browser.newContext({ baseURL });
    try {
      await signIn(other, user.id, baseURL!);
      const otherPage = await other.newPage();
      await otherPage.goto(link);
      await expect(otherPage.getByRole("alert")).toContainText("only in the browser");
    } finally {
      await other.close();
    }

    await page.goto(link);
    await page.getByRole("button", { name: "Confirm it is me" }).click();
    await expect(page).toHaveURL(/\/profile\/two-factor$/);
    await expect(page.getByRole("button", { name: "Start set-up" })).toBeVisible();
    const session = testDb().select().from(sessions).where(eq(sessions.userId, user.id)).get();
    expect(session?.reauthenticatedBy).toBe("email");
  });
});

test.describe("a password reset evicts everyone", () => {
  test("old sessions, API tokens and trusted devices end; passkeys go unless kept", async ({
    page,
    browser,
    baseURL,
    request,
  }) => {
    const user = await createUser();
    createFolderRow(user.id, { name: "Reading" });
    const secret = await enableTwoFactor(user.id);
    // This browser is trusted: the code is skipped at the next log-in.
    await logInWithPassword(page, user.email, TEST_PASSWORD);
    await page.getByLabel("Code", { exact: true }).fill(await currentCode(secret));
    await page.getByLabel("Trust this device for 30 days").check();
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    // Someone else holds a session and a token.
    const thief = await browser.newContext({ baseURL });
    await signIn(thief, user.id, baseURL!);
    const token = insertToken(user.id);
    const authorization = { Authorization: `Bearer ${token}` };
    expect((await request.get("/api/v1/folders", { headers: authorization })).status()).toBe(200);
    const passkey = (name: string) => ({
      id: crypto.randomBytes(16).toString("base64url"),
      userId: user.id,
      publicKey: "k",
      name,
    });
    const stranger = passkey("Stranger's key");
    const mine = passkey("My phone");
    testDb().insert(passkeys).values([stranger, mine]).run();

    await resetPasswordOnPage(page, user.id, "a brand new password");
    const removeStranger = page.getByLabel("Remove “Stranger's key”", { exact: false });
    const removeMine = page.getByLabel("Remove “My phone”", { exact: false });
    await expect(removeStranger).toBeChecked();
    await expect(removeMine).toBeChecked();
    await removeMine.uncheck();
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page.getByRole("heading", { name: "Password updated" })).toBeVisible();

    expect(await sessionCookieWorks(baseURL!, thief)).toBe(false);
    await thief.close();
    const refused = await request.get("/api/v1/folders", { headers: authorization });
    expect(refused.status()).toBe(401);
    expect(tokensOf(user.id)).toEqual([]);
    expect(
      testDb().select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, user.id)).all(),
    ).toEqual([{ id: mine.id }]);

    // The trusted-device cookie is still in this browser, and no longer skips the code.
    await logInWithPassword(page, user.email, "a brand new password");
    await expect(page).toHaveURL(/\/login\/two-factor$/);

    const notice = await waitForMail(user.email, /^Your password was reset$/);
    expect(notice.text?.replace(/\s+/g, " ")).toContain("one passkey was removed");
  });

  test("a passkey removed by the reset no longer signs in", async ({
    page,
    context,
    login,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "WebAuthn is a browser call");
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
    const user = await login();
    await page.goto("/profile");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await confirmWithPassword(page);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await expect(page.getByText("No passkeys yet.")).toHaveCount(0);
    const added = await waitForMail(user.email, /^A passkey was added to your account$/);
    expect(linkIn(added, "/account/undo")).toContain("token=");

    await resetPasswordOnPage(page, user.id, "a brand new password");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page.getByRole("heading", { name: "Password updated" })).toBeVisible();
    await page.goto("/login");
    await page.getByRole("button", { name: "Use a passkey", exact: true }).click();
    await expect(page.getByRole("alert")).toContainText("That passkey did not work");
    await expect(page).toHaveURL(/\/login$/);
  });
});

test.describe("the owner is told, and can undo", () => {
  test("a new token is mailed about; the undo page acts only on its button", async ({
    page,
    login,
    request,
  }) => {
    const user = await login();
    await page.goto("/profile/tokens");
    await confirmWithPassword(page);
    await page.getByLabel("Name", { exact: true }).fill("Suspicious");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page
      .getByRole("dialog", { name: "Your new API token" })
      .getByRole("textbox")
      .inputValue();
    const authorization = { Authorization: `Bearer ${token}` };

    const notice = await waitForMail(user.email, /^An API token was created for your account$/);
    const text = notice.text?.replace(/\s+/g, " ") ?? "";
    expect(text).toContain("“Suspicious”");
    expect(text).toMatch(/From: \S+/);
    const undo = linkIn(notice, "/account/undo");

    // Opening the link (as a mail scanner would) changes nothing.
    forgetMailFromThisMachine("password-reset");
    await page.goto(undo);
    expect((await request.get("/api/v1/folders", { headers: authorization })).status()).toBe(200);
    await page.getByRole("button", { name: "Undo it and secure my account" }).click();
    await expect(page.getByRole("heading", { name: "Your account is secured" })).toBeVisible();
    expect((await request.get("/api/v1/folders", { headers: authorization })).status()).toBe(401);
    expect(testDb().select().from(sessions).where(eq(sessions.userId, user.id)).all()).toEqual([]);
    await waitForMail(user.email, /Reset your Thoughtfully password/);
  });

  test("an undo link works once: opened or posted again, it says when it was used", async ({
    page,
    login,
    browser,
    baseURL,
    javaScriptEnabled,
  }) => {
    const user = await login({ timeZone: "Europe/Paris" });
    insertToken(user.id, { name: "Script" });
    await page.goto("/profile");
    await page.getByRole("button", { name: "Revoke Script" }).click();
    await expect(page.getByText("No tokens yet.")).toBeVisible();
    const undo = linkIn(
      await waitForMail(user.email, /^An API token was revoked$/),
      "/account/undo",
    );
    forgetMailFromThisMachine("password-reset");

    // The owner reads the mail signed out, on another device, with the link open twice.
    const mailbox = await browser.newContext({ baseURL, javaScriptEnabled });
    try {
      const [first, second] = [await mailbox.newPage(), await mailbox.newPage()];
      await first.goto(undo);
      await second.goto(undo);
      await first.getByRole("button", { name: "Secure my account" }).click();
      await expect(first.getByRole("heading", { name: "Your account is secured" })).toBeVisible();
      expect(await sessionCookieWorks(baseURL!, page.context())).toBe(false);

      // Signed in again, the owner is not signed out by the link's second use.
      await signIn(page.context(), user.id, baseURL!);
      const alreadyUsed =
        /^This link was already used on \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2}: every device was signed out\.$/;
      await second.getByRole("button", { name: "Secure my account" }).click();
      await expect(second.getByRole("status")).toHaveText(alreadyUsed);
      expect(await sessionCookieWorks(baseURL!, page.context())).toBe(true);

      // Opened again, it says the same and offers nothing to press.
      await first.goto(undo);
      await expect(first.getByRole("status")).toHaveText(alreadyUsed);
      await expect(first.getByRole("button", { name: "Secure my account" })).toHaveCount(0);
    } finally {
      await mailbox.close();
    }
  });
});

test("an expired token is refused with a clear error", async ({ request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "no page involved: once is enough");
  const user = await createUser();
  const token = insertToken(user.id, { expiresAt: new Date(Date.now() - 1000) });
  const response = await request.get("/api/v1/folders", {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(401);
  expect(await response.json()).toMatchObject({ error: { code: "token_expired" } });
});
