import type { BrowserContext } from "@playwright/test";
import { eq } from "drizzle-orm";
import { securityEvents, sessions, users } from "#db/schema";
import { expect, test } from "../fixtures";
import {
  confirmWithPassword,
  createUser,
  findUser,
  forgetMailFromThisMachine,
  signIn,
  TEST_PASSWORD,
  testDb,
  uniqueEmail,
} from "../support/accounts";
import {
  type FakeIdentity,
  IDENTITY_COOKIE,
  identityCookieValue,
} from "../support/fake-oauth-provider";
import { linkIn, mailsTo, waitForMail } from "../support/mail";
import { atPhoneAndDesktop } from "../support/viewports";

test.beforeEach(() => forgetMailFromThisMachine("sign-up", "password-reset"));

test.describe("sign up, verify, log in", () => {
  test("a new sender signs up, confirms the address from another browser and logs in", async ({
    page,
    context,
    expectAccessible,
  }) => {
    const email = uniqueEmail("newcomer");
    await page.goto("/signup");
    await expectAccessible();
    await page.getByLabel("First name").fill("Grace");
    await page.getByLabel("Last name").fill("Hopper");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create Account" }).click();
    await expect(page.getByText("Must be at least 8 characters long")).toBeVisible();
    await expect(page.getByLabel("First name")).toHaveValue("Grace");
    await expect(page.getByLabel("Email")).toHaveValue(email);

    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Create Account" }).click();
    await expect(page).toHaveURL(/\/check-email$/);
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    expect(findUser(email)?.emailVerified).toBe(false);

    const mail = await waitForMail(email, /Confirm your e-mail/);
    const verifyLink = linkIn(mail, "/verify-email");
    // As from another browser (the one that signed up is signed in: tests/e2e/accounts/sign-up.spec.ts).
    await context.clearCookies();
    await page.goto(verifyLink);
    // With or without JavaScript the page waits for a person's click: opening it changes nothing.
    await expect(page.getByRole("button", { name: "Verify my email" })).toBeVisible();
    await page.waitForLoadState("networkidle");
    expect(findUser(email)?.emailVerified).toBe(false);
    await page.getByRole("button", { name: "Verify my email" }).click();
    await expect(page.getByRole("heading", { name: "Email verified" })).toBeVisible();
    expect(findUser(email)?.emailVerified).toBe(true);
    await expect(page).toHaveURL(/\/login/, { timeout: 8_000 });

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    await expect(page.locator("summary", { hasText: "Grace Hopper" })).toBeVisible();
    await expectAccessible();
  });

  test("a used verification link is refused", async ({ page, context }) => {
    const email = uniqueEmail("twice");
    await page.goto("/signup");
    await page.getByLabel("First name").fill("Twice");
    await page.getByLabel("Last name").fill("Clicked");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Create Account" }).click();
    const link = linkIn(await waitForMail(email, /Confirm your e-mail/), "/verify-email");
    // As from another browser, which stays on the page (the one that signed up is signed in).
    await context.clearCookies();
    for (const outcome of [/Email verified/, /expired or was already used/]) {
      await page.goto(link);
      await page.getByRole("button", { name: "Verify my email" }).click();
      await expect(page.getByText(outcome).first()).toBeVisible();
    }
    await page.goto("/verify-email");
    await expect(
      page.getByText("Invalid verification link. Please check your email for the correct link."),
    ).toBeVisible();
  });

  test("signing up with an address that has an account looks the same and tells its owner", async ({
    page,
  }) => {
    const owner = await createUser();
    await page.goto("/signup");
    await page.getByLabel("First name").fill("Someone");
    await page.getByLabel("Last name").fill("Else");
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Create Account" }).click();
    await expect(page).toHaveURL(/\/check-email$/);
    await waitForMail(owner.email, /already have an account|account/i);
  });
});

test.describe("log in", () => {
  test("a wrong password and an unknown e-mail get the same answer", async ({ page }) => {
    const user = await createUser();
    const answers: string[] = [];
    for (const email of [user.email, uniqueEmail("nobody")]) {
      await page.goto("/login");
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill("not the password");
      await page.getByRole("button", { name: "Log In" }).click();
      const alert = page.getByRole("alert");
      await expect(alert).toContainText("Invalid email or password");
      await expect(page.getByLabel("Email")).toHaveValue(email);
      answers.push(await alert.innerText());
    }
    expect(answers[0]).toBe(answers[1]);
    const failures = testDb()
      .select()
      .from(securityEvents)
      .where(eq(securityEvents.eventType, "failed_login"))
      .all()
      .filter((event) => event.details?.email === user.email);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.userAgent).toBeTruthy();
  });

  test("five failures lock the e-mail out for a while, even with the right password", async ({
    page,
  }) => {
    const user = await createUser();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await page.goto("/login");
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(`wrong-${attempt}`);
      await page.getByRole("button", { name: "Log In" }).click();
      await expect(page.getByRole("alert")).toContainText("Invalid email or password");
    }
    await page.goto("/login");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.getByRole("alert")).toContainText("Too many failed sign-in attempts");
    const throttled = testDb()
      .select()
      .from(securityEvents)
      .where(eq(securityEvents.eventType, "rate_limit_exceeded"))
      .all()
      .filter((event) => event.details?.email === user.email);
    expect(throttled.length).toBeGreaterThan(0);
  });

  test("a signed-in visit to /login never redirects off the site", async ({ login, page }) => {
    await login();
    for (const hostile of ["/.//evil.example", "/%2e%2e//evil.example", "/a/..//evil.example"]) {
      const response = await page.request.get(`/login?redirectTo=${encodeURIComponent(hostile)}`, {
        maxRedirects: 0,
      });
      expect(response.status()).toBe(302);
      expect(response.headers().location).toBe("/");
    }
  });

  test("a signed-out visit to /profile goes to log in and comes back after", async ({ page }) => {
    const user = await createUser({ firstName: "Back", lastName: "Again" });
    await page.goto("/profile");
    // Never signed in here: asked to log in, not told a session expired.
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile$/);
    await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
    await expect(page.getByText("Your session has expired")).toHaveCount(0);
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole("heading", { name: "Profile Settings" })).toBeVisible();
  });

  for (const target of [
    "https://evil.example",
    "//evil.example",
    "/\\evil.example",
    "/\t/evil.example",
    "/%09/evil.example",
    "javascript:alert(1)",
  ]) {
    test(`redirectTo=${JSON.stringify(target)} stays on our site`, async ({ page, baseURL }) => {
      const user = await createUser();
      await page.goto(`/login?redirectTo=${encodeURIComponent(target)}`);
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(TEST_PASSWORD);
      await page.getByRole("button", { name: "Log In" }).click();
      await page.waitForLoadState("load");
      expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
      await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
    });
  }

  test("the session cookie is HttpOnly, SameSite=Lax, Path=/ and has no Domain", async ({
    request,
  }) => {
    const user = await createUser();
    const loginPage = await request.get("/login");
    const csrf = /name="csrf" value="([^"]+)"/.exec(await loginPage.text())?.[1] ?? "";
    const response = await request.post("/login", {
      form: { csrf, email: user.email, password: TEST_PASSWORD },
      maxRedirects: 0,
    });
    expect(response.status()).toBe(302);
    const setCookie = response
      .headersArray()
      .filter((header) => header.name.toLowerCase() === "set-cookie")
      .map((header) => header.value)
      .find((value) => value.startsWith("thoughtfully_session="));
    expect(setCookie).toBeDefined();
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).not.toMatch(/Domain=/i);
    expect(setCookie).toMatch(/Max-Age=2592000/);
  });
});

test.describe("signed in", () => {
  test("edits the profile with the spec's messages and keeps what was typed", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const user = await login({ firstName: "Old", lastName: "Name" });
    await page.goto("/profile");
    await expect(page.getByLabel("Email")).toBeDisabled();
    await expect(page.getByText("Email cannot be changed")).toBeVisible();
    await expect(page.getByRole("heading", { name: "Account Features" })).toBeVisible();
    await expectAccessible();

    await page.getByLabel("First name").fill("");
    await page.getByLabel("Last name").fill("Typed");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(page.getByText("First name is required")).toBeVisible();
    await expect(page.getByLabel("Last name")).toHaveValue("Typed");
    expect(findUser(user.email)?.lastName).toBe("Name");

    await page.getByLabel("First name").fill("New");
    await page.getByLabel("Last name").fill("Person");
    await page.getByLabel("Time zone").selectOption("Europe/Paris");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(page.getByText("Profile updated")).toBeVisible();
    const saved = findUser(user.email);
    expect([saved?.firstName, saved?.lastName, saved?.timeZone]).toEqual([
      "New",
      "Person",
      "Europe/Paris",
    ]);
    await page.locator("summary", { hasText: "New Person" }).click();
    await expect(page.getByRole("link", { name: "Profile Settings" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Admin Dashboard" })).toHaveCount(0);
  });

  test("each profile section has an address of its own: /profile#api-tokens opens at it", async ({
    login,
    page,
  }) => {
    await login();
    await page.goto("/profile#api-tokens");
    await expect(page.getByRole("heading", { level: 2, name: "API tokens" })).toBeInViewport();
    await expect(
      page.getByRole("heading", { level: 1, name: "Profile Settings" }),
    ).not.toBeInViewport();
  });

  test("signing out ends the session on the server: a copied cookie stops working", async ({
    page,
    context,
    baseURL,
    playwright,
  }) => {
    const user = await createUser();
    const { cookieValue } = await signIn(context, user.id, baseURL!);
    await page.goto("/");
    await page.locator("summary").click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("You're signed out")).toBeVisible();

    const copied = await playwright.request.newContext({
      baseURL,
      extraHTTPHeaders: { Cookie: `thoughtfully_session=${cookieValue}` },
    });
    const response = await copied.get("/profile", { maxRedirects: 0 });
    expect(response.status()).toBe(302);
    expect(response.headers().location).toContain("/login?reason=session_expired");
    await copied.dispose();
  });

  test("signing out works with a stale form token; another site cannot sign anyone out", async ({
    login,
    page,
    baseURL,
  }) => {
    await login();
    const forged = await page.request.post("/logout", {
      form: { csrf: "stale" },
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    await page.goto("/profile");
    await expect(page.getByRole("heading", { name: "Profile Settings" })).toBeVisible();

    const stale = await page.request.post("/logout", {
      form: { csrf: "a-token-from-last-week" },
      headers: { Origin: new URL(baseURL!).origin },
      maxRedirects: 0,
    });
    expect(stale.status()).toBe(302);
    expect(stale.headers().location).toBe("/login");
    await page.goto("/profile");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile$/);
  });

  test("/api/login, the spec's log-in address, opens the log-in page", async ({ page }) => {
    await page.goto("/api/login?redirectTo=%2Fprofile");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile$/);
    await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  });

  test("deleting the account removes the user and every session", async ({ login, page }) => {
    const user = await login();
    await page.goto("/profile");
    await page.getByRole("link", { name: "Delete Account" }).click();
    await confirmWithPassword(page);
    const dialog = page.getByRole("dialog", { name: "Are you absolutely sure?" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("folders and all of their contents");
    await dialog.getByRole("link", { name: "Cancel" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    expect(findUser(user.email)).toBeDefined();

    await page.getByRole("link", { name: "Delete Account" }).click();
    await page.getByRole("button", { name: "Yes, delete my account" }).click();
    await expect(page.getByText("Account deleted")).toBeVisible();
    expect(findUser(user.email)).toBeUndefined();
    expect(testDb().select().from(sessions).where(eq(sessions.userId, user.id)).all()).toEqual([]);
  });
});

test.describe("password reset", () => {
  test("resets through the e-mailed link, ends old sessions, and the link works once", async ({
    page,
    browser,
    baseURL,
    playwright,
  }) => {
    const user = await createUser();
    const other = await browser.newContext();
    const { cookieValue } = await signIn(other, user.id, baseURL!);
    await other.close();

    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot password" }).click();
    await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
    await page.getByLabel("Email").fill(`  ${user.email}  `);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();

    const link = linkIn(await waitForMail(user.email, /Reset your/), "/reset-password");
    await page.goto(link);
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByLabel("Confirm password").fill("a different password");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page.getByText("Passwords don't match")).toBeVisible();

    await page.getByLabel("New password").fill("a brand new password");
    await page.getByLabel("Confirm password").fill("a brand new password");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page.getByRole("heading", { name: "Password updated" })).toBeVisible();

    const copied = await playwright.request.newContext({
      baseURL,
      extraHTTPHeaders: { Cookie: `thoughtfully_session=${cookieValue}` },
    });
    expect((await copied.get("/profile", { maxRedirects: 0 })).status()).toBe(302);
    await copied.dispose();

    // A spent link says so before anything is typed, and offers a new one in place.
    await page.goto(link);
    await expect(page.getByRole("alert")).toHaveText(/invalid or has expired/);
    await expect(page.getByLabel("New password")).toHaveCount(0);
    await expect(page.getByLabel("Email")).toHaveValue("");
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Send a new link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    const resetMails = async () =>
      (await mailsTo(user.email)).filter((mail) => /Reset your/.test(mail.subject ?? "")).length;
    await expect.poll(resetMails).toBe(2);

    await page.goto("/login");
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill("a brand new password");
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
  });
});

test.describe("CSRF", () => {
  test("a form posted without or with a wrong token is refused with 403 and changes nothing", async ({
    login,
    page,
  }) => {
    const user = await login({ firstName: "Kept", lastName: "Same" });
    for (const csrf of [undefined, "forged-token"]) {
      const response = await page.request.post("/profile", {
        form: { ...(csrf ? { csrf } : {}), firstName: "Hacked", lastName: "Name", timeZone: "UTC" },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(403);
    }
    expect(findUser(user.email)?.firstName).toBe("Kept");
  });

  test("a cross-site post is refused even with a valid token", async ({ login, page }) => {
    const user = await login({ firstName: "Kept" });
    await page.goto("/profile");
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const form = { csrf, firstName: "Hacked", lastName: "Name", timeZone: "UTC" };
    const fromBrowser = await page.request.post("/profile", {
      form,
      headers: { "Sec-Fetch-Site": "cross-site" },
      maxRedirects: 0,
    });
    expect(fromBrowser.status()).toBe(403);
    // A foreign Origin is stopped by the server's cross-site gate before the app reads the form.
    const withOrigin = await page.request.post("/profile", {
      form,
      headers: { Origin: "https://evil.example" },
      maxRedirects: 0,
    });
    expect(withOrigin.status()).toBe(403);
    expect(findUser(user.email)?.firstName).toBe("Kept");
  });

  test("the 403 page keeps what was typed and lets the user submit again", async ({
    login,
    context,
    page,
    baseURL,
  }) => {
    const user = await login({ firstName: "Before" });
    await page.goto("/profile");
    // Signing in again in this browser replaces its session, so the open
    // page's token belongs to a session that is no longer this browser's.
    await signIn(context, user.id, baseURL!);
    await page.getByLabel("First name").fill("After");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(page.getByRole("heading", { name: "Please submit again" })).toBeVisible();
    await expect(page.getByLabel("First name")).toHaveValue("After");
    expect(findUser(user.email)?.firstName).toBe("Before");
    await page.getByRole("button", { name: "Submit again" }).click();
    await expect(page.getByText("Profile updated")).toBeVisible();
    expect(findUser(user.email)?.firstName).toBe("After");
  });
});

test.describe("third-party sign-in", () => {
  const provider = () => process.env.E2E_OAUTH_ORIGIN!;
  async function asIdentity(context: BrowserContext, identity: FakeIdentity) {
    await context.addCookies([
      { name: IDENTITY_COOKIE, value: identityCookieValue(identity), url: provider() },
    ]);
  }

  test("creates an account from a verified identity and links an existing one", async ({
    page,
    context,
  }) => {
    const email = uniqueEmail("oauth");
    await asIdentity(context, {
      sub: `sub-${email}`,
      email,
      email_verified: true,
      given_name: "Olive",
      family_name: "Auth",
    });
    await page.goto("/login");
    await page.getByRole("button", { name: "Continue with Example ID" }).click();
    await expect(page.locator("summary", { hasText: "Olive Auth" })).toBeVisible();
    expect(findUser(email)?.emailVerified).toBe(true);
    const signInMethods = testDb()
      .select({ method: sessions.signInMethod })
      .from(sessions)
      .where(eq(sessions.userId, findUser(email)!.id))
      .all();
    expect(signInMethods).toEqual([{ method: "oauth" }]);

    const existing = await createUser({ firstName: "Linked", lastName: "Person" });
    await context.clearCookies();
    await asIdentity(context, {
      sub: `sub-${existing.email}`,
      email: existing.email,
      email_verified: true,
    });
    await page.goto("/login");
    await page.getByRole("button", { name: "Continue with Example ID" }).click();
    await expect(page.locator("summary", { hasText: "Linked Person" })).toBeVisible();
    expect(findUser(existing.email)?.authProviderId).toBe(`sub-${existing.email}`);
  });

  test("an unverified identity cannot take over an existing account", async ({ page, context }) => {
    const existing = await createUser();
    await asIdentity(context, { sub: "attacker", email: existing.email, email_verified: false });
    await page.goto("/login");
    await page.getByRole("button", { name: "Continue with Example ID" }).click();
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByText("Sign-in failed")).toBeVisible();
    expect(findUser(existing.email)?.authProviderId).toBeNull();
  });

  test("the address's owner signing in ends a never-verified account's password and sessions", async ({
    page,
    context,
    browser,
    baseURL,
  }) => {
    const squatted = await createUser({ emailVerified: false });
    const squatter = await browser.newContext({ baseURL });
    await signIn(squatter, squatted.id, baseURL!);
    await asIdentity(context, {
      sub: `owner-${squatted.email}`,
      email: squatted.email,
      email_verified: true,
    });
    await page.goto("/login");
    await page.getByRole("button", { name: "Continue with Example ID" }).click();
    await expect(page.locator("summary", { hasText: "Ada Lovelace" })).toBeVisible();
    expect(findUser(squatted.email)?.passwordHash).toBeNull();

    const squatterPage = await squatter.newPage();
    await squatterPage.goto("/profile");
    await expect(squatterPage).toHaveURL(/\/login/);
    await squatter.close();
  });
});

atPhoneAndDesktop("an expired reset link offers a new one", () => {
  test("an expired reset link is refused and an unknown address gets the same answer", async ({
    page,
  }) => {
    const user = await createUser();
    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill(user.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    // The whole answer, not the part streamed so far.
    await page.waitForLoadState("load");
    await expect(page.getByRole("link", { name: "Back to log in" })).toBeVisible();
    const known = await page.getByRole("main").innerText();
    const link = linkIn(await waitForMail(user.email, /Reset your/), "/reset-password");
    testDb()
      .update(users)
      .set({ passwordResetExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(users.id, user.id))
      .run();
    await page.goto(link);
    await expect(page.getByRole("alert")).toHaveText(/invalid or has expired/);
    await expect(page.getByLabel("New password")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Send a new link" })).toBeVisible();

    const stranger = uniqueEmail("stranger");
    await page.goto("/forgot-password");
    await page.getByLabel("Email").fill(stranger);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
    await page.waitForLoadState("load");
    await expect(page.getByRole("link", { name: "Back to log in" })).toBeVisible();
    expect(await page.getByRole("main").innerText()).toBe(known);
    expect(await mailsTo(stranger)).toEqual([]);
  });
});
