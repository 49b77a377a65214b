import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { securityEvents, sessions, userRoles } from "#db/schema";
import { expect, test } from "../fixtures";
import {
  createUser,
  currentCode,
  enableTwoFactor,
  signIn,
  signInWithSecondFactor,
  TEST_PASSWORD,
  testDb,
} from "../support/accounts";

async function createAdmin() {
  const admin = await createUser({ firstName: "Grace", lastName: "Admin" });
  testDb().insert(userRoles).values({ userId: admin.id, role: "admin", grantReason: "e2e" }).run();
  const twoFactorSecret = await enableTwoFactor(admin.id);
  return { ...admin, twoFactorSecret };
}

function unauthorizedEventsOf(userId: number | null) {
  return testDb()
    .select()
    .from(securityEvents)
    .where(eq(securityEvents.eventType, "unauthorized_access"))
    .all()
    .filter((event) => event.userId === userId);
}

function sessionsOf(userId: number) {
  return testDb().select().from(sessions).where(eq(sessions.userId, userId)).all();
}

function activeRoles(userId: number) {
  return testDb()
    .select()
    .from(userRoles)
    .where(and(eq(userRoles.userId, userId), eq(userRoles.isActive, true)))
    .all();
}

test.describe("admin dashboards", () => {
  test("an admin moves through every tab", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
    expectAccessible,
  }) => {
    test.setTimeout(90_000); // four accessibility checks
    const admin = await createAdmin();
    await signInWithSecondFactor(context, admin.id, baseURL!);

    await page.goto("/");
    await page.getByText("Grace Admin").click();
    await page.getByRole("link", { name: "Admin Dashboard" }).click();
    await expect(page).toHaveURL(/\/admin\/dashboard$/);
    await expect(page.getByRole("heading", { level: 1, name: "Admin Dashboard" })).toBeVisible();
    const tabs = page.getByRole("navigation", { name: "Dashboard sections" });
    await expect(tabs.getByRole("link", { name: "Overview" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(page.getByRole("heading", { name: "Recent activity" })).toBeVisible();
    const activity = page.getByRole("region", { name: "Recent activity" }).getByRole("listitem");
    expect(await activity.count()).toBeGreaterThan(0);
    expect(await activity.count()).toBeLessThanOrEqual(8);
    await expect(page.getByText(/^Last updated:/)).toBeVisible();
    await expect(page.getByRole("button", { name: "Refresh" })).toBeVisible();
    await expect(page.getByRole("switch", { name: "Auto-refresh on" })).toHaveCount(
      javaScriptEnabled ? 1 : 0,
    );
    await expectAccessible();

    await tabs.getByRole("link", { name: "System Health" }).click();
    await expect(page).toHaveURL(/\?tab=health$/);
    await expect(tabs.getByRole("link", { name: "System Health" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(page.getByText("Connected")).toBeVisible();
    await expect(page.getByText(/^\d+(d \d+h|h \d+m|m)$/)).toBeVisible();
    await expect(page.getByText(/^\d+\.\d\d ms$/)).toBeVisible();
    await expect(page.getByText("Dropped requests")).toBeVisible();
    await expect(page.getByText(/^Since start: /)).toBeVisible();
    await expect(page.getByText("Disk reserve")).toBeVisible();
    await expect(
      page.getByText(
        / free on the data volume, 256\.0 MB kept for the database, which uploads may not use$/,
      ),
    ).toBeVisible();
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(page.getByRole("region", { name: "Notifications" })).toContainText("Refreshed");
    await expect(page).toHaveURL(/\/admin\/dashboard\?tab=health$/);

    await tabs.getByRole("link", { name: "Business Metrics" }).click();
    await expect(page).toHaveURL(/\?tab=business$/);
    await expect(page.getByText("Weekly active senders", { exact: true }).first()).toBeVisible();
    await expect(page.getByText("Recipient retention")).toBeVisible();
    await expect(page.getByRole("img", { name: "E-mails sent per day" })).toBeVisible();
    await expect(page.getByRole("img", { name: "Weekly active senders" })).toBeVisible();
    const reasons = page.getByRole("region", { name: "Unsubscribe reasons (last 30 days)" });
    await expect(reasons.getByText("E-mails come too often")).toBeVisible();
    await expectAccessible();

    await tabs.getByRole("link", { name: "Usage & Revenue" }).click();
    await expect(page).toHaveURL(/\?tab=usage$/);
    await expect(page.getByText(/^\$\d[\d,]*\.\d\d$/)).toBeVisible();
    await expect(page.getByRole("img", { name: "Storage used" })).toBeVisible();
    await page.getByText("Storage used: data table").click();
    await expect(page.getByRole("table", { name: "Storage used by day" })).toBeVisible();
  });

  test("an admin grants and revokes roles and opens the security dashboard", async ({
    page,
    context,
    baseURL,
    expectAccessible,
  }) => {
    test.setTimeout(90_000);
    const admin = await createAdmin();
    const colleague = await createUser({ firstName: "New", lastName: "Colleague" });
    // A known address with three failed logins in the last hour: it tops the IP list.
    const ip = `198.51.${crypto.randomInt(0, 255)}.${crypto.randomInt(1, 255)}`;
    testDb()
      .insert(securityEvents)
      .values(
        [1, 2, 3].map((minutes) => ({
          eventType: "failed_login" as const,
          ipAddress: ip,
          createdAt: new Date(Date.now() - minutes * 60_000),
        })),
      )
      .run();
    await signInWithSecondFactor(context, admin.id, baseURL!);
    await page.goto("/admin/dashboard");
    const tabs = page.getByRole("navigation", { name: "Dashboard sections" });
    await tabs.getByRole("link", { name: "Security" }).click();
    await expect(page).toHaveURL(/\?tab=security$/);
    await expect(page.getByRole("heading", { name: "Admin roles" })).toBeVisible();
    await expectAccessible();

    // Grant: a wrong address first, then the colleague's.
    await page.getByLabel("Email").fill("nobody-here@example.com");
    await page.getByRole("button", { name: "Grant role" }).click();
    await expect(page.getByText("No account uses this e-mail")).toBeVisible();
    await page.getByLabel("Email").fill(colleague.email);
    await page.getByLabel("Reason (optional)").fill("Joins the on-call rota");
    await page.getByRole("button", { name: "Grant role" }).click();
    await expect(page.getByText("Role admin granted")).toBeVisible();
    // The colleague has no second factor yet: the role waits for it.
    await expect(page.getByText("takes effect once they set up two-factor sign-in")).toBeVisible();
    expect(activeRoles(colleague.id)).toMatchObject([
      { role: "admin", grantedBy: admin.id, grantReason: "Joins the on-call rota" },
    ]);
    await expect(page.getByText(`${colleague.email} since`)).toBeVisible();

    await page.getByLabel(`Reason for revoking ${colleague.email}`).fill("Rota ended");
    await page.getByRole("button", { name: `Revoke admin from ${colleague.email}` }).click();
    await expect(page.getByText("Admin role revoked")).toBeVisible();
    expect(activeRoles(colleague.id)).toEqual([]);
    await expect(
      page.getByRole("cell", { name: /by Grace Admin|Rota ended/ }).first(),
    ).toBeVisible();

    await page.getByRole("link", { name: "Open the Security Dashboard" }).click();
    await expect(page).toHaveURL(/\/admin\/security$/);
    await expect(page.getByRole("heading", { level: 1, name: "Security Dashboard" })).toBeVisible();
    for (const label of [
      "Critical alerts",
      "Failed logins",
      "File threats",
      "Rate-limit violations",
      "Unauthorized access",
      "Total security events",
    ]) {
      await expect(page.locator("dt", { hasText: label }).first()).toBeVisible();
    }
    const topIps = page.getByRole("region", { name: "Top IP addresses" });
    await expect(topIps.getByRole("row", { name: `${ip} 3` })).toBeVisible();
    const recent = page.getByRole("region", { name: "Recent events" });
    // A header row and the newest events, at most 5 (our three at least).
    const rows = await recent.getByRole("row").count();
    expect(rows).toBeGreaterThanOrEqual(4);
    expect(rows).toBeLessThanOrEqual(6);
    await expect(page.getByRole("region", { name: "Trends" })).toContainText(/up|down|stable/i);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(page.getByRole("region", { name: "Notifications" })).toContainText("Refreshed");
    await expect(page).toHaveURL(/\/admin\/security$/);
    await expectAccessible();
  });

  test("a non-admin gets Access Denied, then the home page; the refusal is recorded", async ({
    login,
    page,
    baseURL,
    javaScriptEnabled,
    expectAccessible,
  }) => {
    const user = await login({ firstName: "Not", lastName: "Admin" });

    const response = await page.goto("/admin/dashboard?tab=health");
    expect(response?.status()).toBe(403);
    expect(response?.headers().refresh).toBe("1.5;url=/");
    await expect(page.getByRole("heading", { name: "Access Denied" })).toBeVisible();
    await expect(
      page.getByText("Admin access required to view the admin dashboard."),
    ).toBeVisible();
    // The browser follows the Refresh header within a second, JavaScript or not, which
    // cuts a live axe run short; the no-js project checks this same HTML from a copy.
    if (!javaScriptEnabled) await expectAccessible();
    await expect(page).toHaveURL(`${baseURL}/`, { timeout: 5000 });
    const toast = page.getByRole("region", { name: "Notifications" });
    await expect(toast).toContainText("Access Denied");
    await expect(toast).toContainText("Admin access required to view the admin dashboard.");

    const second = await page.goto("/admin/security");
    expect(second?.status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Access Denied" })).toBeVisible();
    await expect(page).toHaveURL(`${baseURL}/`, { timeout: 5000 });

    // The action checks too: a well-formed grant (with the CSRF token) is refused.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const post = await page.request.post("/admin/dashboard?tab=security", {
      form: { csrf, intent: "grant", email: user.email, role: "admin" },
      headers: { Origin: baseURL! },
      maxRedirects: 0,
    });
    expect(post.status()).toBe(403);
    expect(activeRoles(user.id)).toEqual([]);

    const events = unauthorizedEventsOf(user.id);
    expect(
      events.map((event) => [event.endpoint, event.requestMethod, event.responseStatus]),
    ).toEqual([
      ["/admin/dashboard", "GET", 403],
      ["/admin/security", "GET", 403],
      ["/admin/dashboard", "POST", 403],
    ]);
  });

  test("a form posted from another site grants nothing", async ({ page, context, baseURL }) => {
    const admin = await createAdmin();
    const target = await createUser();
    await signInWithSecondFactor(context, admin.id, baseURL!);
    // Another site's page (the test's fake sign-in provider) with a form aimed at ours.
    await page.goto(`${process.env.E2E_OAUTH_ORIGIN}/`);
    await page.setContent(`
      <form method="post" action="${baseURL}/admin/dashboard">
        <input name="intent" value="grant"><input name="email" value="${target.email}">
        <input name="role" value="admin"><button>Win a prize</button>
      </form>`);
    const answer = page.waitForResponse(`${baseURL}/admin/dashboard`);
    await page.getByRole("button", { name: "Win a prize" }).click();
    // The server's cross-site gate refuses it before any action runs
    // (docs/decisions/0239-one-cross-site-gate.md).
    expect((await answer).status()).toBe(403);
    await expect(page.getByRole("heading", { name: "Request refused" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Submit again" })).toHaveCount(0);
    expect(activeRoles(target.id)).toEqual([]);
  });

  test("a password-only session of an admin is asked for the second factor, then opens the page", async ({
    page,
    context,
    baseURL,
    expectAccessible,
  }) => {
    const admin = await createAdmin();
    const colleague = await createUser();
    await signIn(context, admin.id, baseURL!, testDb(), { method: "password" });

    await page.goto("/admin/dashboard?tab=security");
    await expect(page).toHaveURL(
      /\/login\/step-up\?redirectTo=%2Fadmin%2Fdashboard%3Ftab%3Dsecurity$/,
    );
    await expect(page.getByRole("heading", { level: 1, name: "Confirm it's you" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Notifications" })).toContainText(
      "Sign in again with your second factor to open the admin pages.",
    );
    await expectAccessible();

    // The actions refuse too: a well-formed grant with this session's CSRF token changes nothing.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const post = await page.request.post("/admin/dashboard?tab=security", {
      form: { csrf, intent: "grant", email: colleague.email, role: "admin" },
      headers: { Origin: baseURL! },
      maxRedirects: 0,
    });
    expect(post.status()).toBe(302);
    expect(post.headers().location).toMatch(/^\/login\/step-up\?/);
    expect(activeRoles(colleague.id)).toEqual([]);
    expect(unauthorizedEventsOf(admin.id).map((event) => event.details)).toEqual([
      { reason: "no_second_factor_session" },
      { reason: "no_second_factor_session" },
    ]);

    await page.getByLabel("Code", { exact: true }).fill("000000");
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByText("That code is not valid")).toBeVisible();
    await page.getByLabel("Code", { exact: true }).fill(await currentCode(admin.twoFactorSecret));
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page).toHaveURL(/\/admin\/dashboard\?tab=security$/);
    await expect(page.getByRole("heading", { name: "Admin roles" })).toBeVisible();
    // The session was replaced by one signed in with the code.
    expect(sessionsOf(admin.id).map((session) => session.signInMethod)).toEqual(["totp"]);
  });

  test("a signed-out visitor is sent to log in and comes back as an admin", async ({ page }) => {
    const admin = await createAdmin();
    const before = unauthorizedEventsOf(null).filter(
      (event) => event.endpoint === "/admin/security",
    ).length;
    await page.goto("/admin/security");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fadmin%2Fsecurity$/);
    const after = unauthorizedEventsOf(null).filter(
      (event) => event.endpoint === "/admin/security",
    );
    expect(after.length).toBeGreaterThan(before);
    expect(after.at(-1)).toMatchObject({ responseStatus: 302, details: { reason: "signed_out" } });

    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Log In" }).click();
    // Admins have a second factor; the code step keeps where to go next.
    await expect(page).toHaveURL(/\/login\/two-factor$/);
    await page.getByLabel("Code", { exact: true }).fill(await currentCode(admin.twoFactorSecret));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page).toHaveURL(/\/admin\/security$/);
    await expect(page.getByRole("heading", { level: 1, name: "Security Dashboard" })).toBeVisible();
  });
});
