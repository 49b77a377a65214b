import { eq } from "drizzle-orm";
import sharp from "sharp";
import { senderBranding } from "#db/schema";
import { expect, test } from "../fixtures";
import { testDb } from "../support/accounts";

function brandingOf(userId: number) {
  return testDb().select().from(senderBranding).where(eq(senderBranding.userId, userId)).get();
}

test.describe("Premium perks", () => {
  test("a free sender sees the newsletter look and priority support as upgrade prompts", async ({
    login,
    page,
    expectAccessible,
  }) => {
    const sender = await login();
    await page.goto("/profile");
    await page.getByRole("link", { name: "Newsletter look" }).click();
    const dialog = page.getByRole("dialog", { name: "Newsletter look" });
    await expect(dialog.getByText("A Premium perk")).toBeVisible();
    await expect(dialog.getByRole("link", { name: "Upgrade to Premium" })).toHaveAttribute(
      "href",
      "/upgrade",
    );
    await expect(dialog.getByLabel("Letter")).toBeDisabled();
    await expect(dialog.getByRole("button", { name: "Save look" })).toHaveCount(0);
    await expectAccessible();

    // The server refuses a free sender's change even when it is posted by hand.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const response = await page.request.post("/profile/branding", {
      form: { csrf, intent: "save-look", template: "letter" },
    });
    expect(response.status()).toBe(403);
    expect(brandingOf(sender.id)).toBeUndefined();

    await page.goto("/support");
    const priority = page.getByRole("region", { name: "Priority support (Premium)" });
    await expect(priority).toContainText("Premium members have their own support address");
    await expect(priority.getByRole("link", { name: "Upgrade to Premium" })).toBeVisible();
  });

  test("a Premium sender chooses a template, an accent colour and a header image", async ({
    login,
    page,
  }) => {
    const sender = await login({ subscriptionTier: "premium", subscriptionStatus: "active" });
    await page.goto("/profile/branding");
    const dialog = page.getByRole("dialog", { name: "Newsletter look" });
    await dialog.getByLabel("Letter").check();
    await dialog.getByLabel("Accent colour (optional)").fill("#ffff00");
    await dialog.getByRole("button", { name: "Save look" }).click();
    await expect(dialog.getByText(/too light to read white text on/)).toBeVisible();
    await expect(dialog.getByLabel("Accent colour (optional)")).toHaveValue("#ffff00");
    expect(brandingOf(sender.id)).toBeUndefined();

    await dialog.getByLabel("Accent colour (optional)").fill("#1E3A8A");
    await dialog.getByRole("button", { name: "Save look" }).click();
    await expect(page.getByText("Newsletter look saved")).toBeVisible();
    await expect(page.getByText("Letter template, accent #1e3a8a")).toBeVisible();
    expect(brandingOf(sender.id)).toMatchObject({ template: "letter", accentColor: "#1e3a8a" });

    await page.goto("/profile/branding");
    const banner = await sharp({
      create: { width: 2400, height: 800, channels: 3, background: "#d9c7a3" },
    })
      .jpeg()
      .toBuffer();
    await dialog
      .getByLabel("Header image file")
      .setInputFiles({ name: "banner.jpg", mimeType: "image/jpeg", buffer: banner });
    await dialog.getByRole("button", { name: "Upload header image" }).click();
    await expect(page.getByText("Header image saved")).toBeVisible();
    await expect(dialog.getByRole("img", { name: "Your header" })).toBeVisible();
    expect(brandingOf(sender.id)).toMatchObject({ headerImageWidth: 1200, headerImageHeight: 400 });

    await dialog.getByRole("button", { name: "Remove header image" }).click();
    await expect(page.getByText("Header image removed")).toBeVisible();
    await expect(dialog.getByRole("img", { name: "Your header" })).toHaveCount(0);
    expect(brandingOf(sender.id)?.headerImage).toBeNull();

    await page.goto("/support");
    await expect(
      page.getByRole("region", { name: "Priority support (Premium)" }).getByRole("link"),
    ).toHaveText(/^support\+premium@/);
  });
});
