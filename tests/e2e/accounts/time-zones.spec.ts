import { eq } from "drizzle-orm";
import { users } from "#db/schema";
import { expect, test } from "../fixtures";
import { findUser, testDb } from "../support/accounts";

test.describe("time zones never move by themselves", () => {
  test("a UTC account sees UTC picked, and saving a new name keeps it", async ({
    login,
    page,
  }, testInfo) => {
    const user = await login({ timeZone: "UTC" });
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto("/profile");
    const zone = page.getByLabel("Time zone");
    await expect(zone).toHaveValue("UTC");
    await expect(zone.locator("option:checked")).toHaveText("UTC (no daylight saving)");
    await page.screenshot({ path: testInfo.outputPath("profile-time-zone-phone.png") });

    await page.getByLabel("First name").fill("Renamed");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(page.getByText("Profile updated")).toBeVisible();
    expect([findUser(user.email)?.firstName, findUser(user.email)?.timeZone]).toEqual([
      "Renamed",
      "UTC",
    ]);
    await expect(page.getByLabel("Time zone")).toHaveValue("UTC");
  });

  test("the picker groups cities by region and saves the one picked", async ({ login, page }) => {
    const user = await login({ timeZone: "UTC" });
    await page.goto("/profile");
    const europe = page.locator('select[name="timeZone"] optgroup[label="Europe"]');
    await expect(europe.locator('option[value="Europe/Paris"]')).toHaveText("Paris");
    await expect(
      page.locator(
        'select[name="timeZone"] optgroup[label="America"] option[value="America/New_York"]',
      ),
    ).toHaveText("New York");

    await page.getByLabel("Time zone").selectOption("Asia/Tokyo");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(page.getByText("Profile updated")).toBeVisible();
    expect(findUser(user.email)?.timeZone).toBe("Asia/Tokyo");
  });

  test("a page opened before the zone changed elsewhere does not put the old zone back", async ({
    login,
    page,
  }) => {
    const user = await login({ timeZone: "Europe/Paris" });
    await page.goto("/profile");
    await expect(page.getByLabel("Time zone")).toHaveValue("Europe/Paris");
    // Changed in another tab (or another device) while this page was open.
    testDb().update(users).set({ timeZone: "Asia/Tokyo" }).where(eq(users.id, user.id)).run();

    await page.getByLabel("Last name").fill("Elsewhere");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect(page.getByText("Profile updated")).toBeVisible();
    expect([findUser(user.email)?.lastName, findUser(user.email)?.timeZone]).toEqual([
      "Elsewhere",
      "Asia/Tokyo",
    ]);
  });
});

test.describe("sign-up's time zone", () => {
  test.use({ timezoneId: "America/Chicago" });

  test("is the browser's when JavaScript runs, and left to the server's UTC without it", async ({
    page,
    javaScriptEnabled,
  }) => {
    await page.goto("/signup");
    const field = page.locator('input[type="hidden"][name="timeZone"]');
    if (javaScriptEnabled) {
      await expect(field).toHaveValue("America/Chicago");
    } else {
      await expect(field).toHaveValue("");
    }
  });
});
