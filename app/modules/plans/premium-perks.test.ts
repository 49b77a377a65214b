import { describe, expect, test } from "vitest";
import { PREMIUM_PERKS, perksInOneLine } from "./premium-perks";

describe("the Premium perks", () => {
  test("name every perk of the plan once, with the templates by name", () => {
    expect(PREMIUM_PERKS.map((perk) => perk.id)).toEqual([
      "unlimited",
      "frequencies",
      "templates",
      "branding",
      "analytics",
      "support",
    ]);
    expect(PREMIUM_PERKS.find((perk) => perk.id === "templates")?.detail).toBe(
      "Letter and Postcard as well as Classic",
    );
    expect(PREMIUM_PERKS.find((perk) => perk.id === "unlimited")?.detail).toContain("20.0 MB");
  });

  test("read as one sentence for the banner", () => {
    expect(perksInOneLine()).toBe(
      "Unlimited folders and storage, daily and every-two-weeks delivery, newsletter templates, your own branding, delivery analytics and priority support.",
    );
  });
});
