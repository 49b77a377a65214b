import { createUser as createUserRow } from "#db/factories";
import { securityEvents, userRoles } from "#db/schema";
import { expect, test } from "../fixtures";
import {
  createUser,
  enableTwoFactor,
  signIn,
  signInWithSecondFactor,
  testDb,
  uniqueEmail,
} from "../support/accounts";
import { startPrivateServer } from "../support/private-server";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

test.describe("copy that says what is true", () => {
  test("the invite sheet says the reward comes on top of the plan", async ({ login, page }) => {
    await login();
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto("/invite");
    const dialog = page.getByRole("dialog", { name: "Invite friends, get folders" });
    await expect(dialog).toContainText(
      "Each friend who signs up through your link and confirms their e-mail gives you 1 more folder and 10.0 MB more storage, on top of what your plan includes. Up to 5 friends count: at most +5 folders and +50.0 MB.",
    );
  });

  test.describe("on an iPhone", () => {
    test.use({ userAgent: IPHONE });

    test("the profile offers the bookmark and a Shortcut, not Share → Thoughtfully", async ({
      login,
      page,
    }) => {
      await login();
      await page.goto("/profile");
      const section = page.getByRole("region", { name: "Save from any browser" });
      await expect(section).toContainText(
        "use the bookmark above in Safari, or the Shortcut below",
      );
      await expect(section).not.toContainText("add this site to your home screen");
      await expect(section.getByText("iOS does not let a web app receive shares")).toBeVisible();
      await expect(section.getByText(/\/add\?extension=true&url=$/)).toBeVisible();
    });
  });

  test("elsewhere the profile offers the share target, and the iOS recipe one tap away", async ({
    login,
    page,
  }) => {
    await login();
    await page.goto("/profile");
    const section = page.getByRole("region", { name: "Save from any browser" });
    await expect(section).toContainText(
      "On an Android phone, add this site to your home screen, then use Share → Thoughtfully: links, photos from your gallery, PDFs and Word files",
    );
    // An iPhone's photos: a Shortcut with an API token, or the folder's own address (set up in these tests).
    await expect(section).toContainText("e-mail it to the folder's own address");
    await expect(section.getByText("iOS does not let a web app receive shares")).toBeHidden();
    await section.getByText("iPhone and iPad: a Shortcut in the Share menu").click();
    await expect(section.getByText("iOS does not let a web app receive shares")).toBeVisible();
  });

  test("the extension page tells iPhone users what works there", async ({ page }) => {
    await page.goto("/chrome-extension");
    await expect(
      page.getByText("On iPhone and iPad, iOS does not let a web app receive shares"),
    ).toBeVisible();
    await expect(
      page.getByText("To save a photo from an iPhone, use an Apple Shortcut"),
    ).toBeVisible();
  });

  test("the log-in page says Log In, and nothing else, for logging in", async ({ page }) => {
    await page.goto("/login");
    await expect(page.getByRole("link", { name: "Log In", exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Log In", exact: true })).toBeVisible();
    await expect(page.getByRole("button", { name: "Log In", exact: true })).toBeVisible();
    await expect(page.getByText(/Sign In/)).toHaveCount(0);
    await expect(page).toHaveTitle("Log In · Thoughtfully");
  });

  test("the verify page asks for a press, and says nothing is happening until then", async ({
    page,
  }) => {
    await page.goto("/verify-email?token=not-pressed-yet");
    await expect(
      page.getByText("Press the button to confirm this is your email address."),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Verify my email" })).toBeEnabled();
    await expect(page.getByText(/Verifying/)).toHaveCount(0);
  });

  test("signing out lands on log-in with a word that it worked", async ({ login, page }) => {
    await login({ firstName: "Leaving", lastName: "Soon" });
    await page.goto("/profile");
    await page.locator("summary", { hasText: "Leaving Soon" }).click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText("You're signed out")).toBeVisible();
  });

  test("the admin's recent activity reads in whole lines at 375 px", async ({
    page,
    context,
    baseURL,
  }, testInfo) => {
    const admin = await createUser({ firstName: "Grace", lastName: "Admin" });
    testDb()
      .insert(userRoles)
      .values({ userId: admin.id, role: "admin", grantReason: "e2e" })
      .run();
    // Admin pages open only to admins on a session signed in with a second factor.
    await enableTwoFactor(admin.id);
    testDb()
      .insert(securityEvents)
      .values({
        eventType: "suspicious_activity",
        severity: "high",
        userId: admin.id,
        details: { note: "a long description of what happened" },
      })
      .run();
    await signInWithSecondFactor(context, admin.id, baseURL!);
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto("/admin/dashboard");
    const items = page.getByRole("region", { name: "Recent activity" }).getByRole("listitem");
    await expect(items.first()).toBeVisible();
    for (const item of await items.all()) {
      // The badge, then the event's words.
      const text = item.locator("span").nth(1);
      const box = (await text.boundingBox())!;
      expect(box.width, (await text.textContent()) ?? "").toBeGreaterThan(250);
    }
    const shot = testInfo.outputPath("admin-activity-phone.png");
    await page.screenshot({ path: shot, fullPage: true });
    await testInfo.attach("admin-activity-phone.png", { path: shot, contentType: "image/png" });
  });
});

test.describe("the upgrade page", () => {
  test("shows the price read from Stripe", async ({ login, page }) => {
    await login();
    await page.goto("/upgrade");
    const dialog = page.getByRole("dialog", { name: "Upgrade to Premium" });
    await expect(dialog.getByText("$4.99 a month", { exact: true })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Upgrade" })).toBeEnabled();
  });
});

test.describe("the upgrade page with billing off", () => {
  test.describe.configure({ mode: "serial" });
  // No STRIPE_* settings: billing is off on this server.
  const privateServer = startPrivateServer("billing-off");

  test("one clear disabled state: the reason once, and a button that cannot be pressed", async ({
    page,
    context,
  }) => {
    const { database, origin } = privateServer;
    const user = createUserRow(database, { email: uniqueEmail("no-billing") });
    await signIn(context, user.id, origin, database);
    await page.goto(`${origin}/upgrade`);
    const dialog = page.getByRole("dialog", { name: "Upgrade to Premium" });
    const upgrade = dialog.getByRole("button", { name: "Upgrade" });
    await expect(upgrade).toBeDisabled();
    await expect(upgrade).toHaveAccessibleDescription(
      "Billing is not configured on this server yet, so Premium cannot be bought here.",
    );
    await expect(dialog.getByText("Billing is not configured on this server yet")).toHaveCount(1);
    await expect(dialog.getByText(/a month/)).toHaveCount(0);
  });
});
