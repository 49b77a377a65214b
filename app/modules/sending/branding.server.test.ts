import crypto from "node:crypto";
import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { db } from "~/platform/db.server";
import { isMemoryBudgetSpent, memoryBudget } from "~/platform/memory-budget.server";
import {
  BrandingRuleError,
  BrandingSchema,
  getBranding,
  newsletterBrandingFor,
  removeHeaderImage,
  saveHeaderImage,
  saveLook,
} from "./branding.server";

const premiumSender = () =>
  createUser(db, { subscriptionTier: "premium", subscriptionStatus: "active" });

/** A noisy photo: hard to compress, so re-encoding has real work to do. */
function noisyImage(width: number, height: number) {
  return sharp(crypto.randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .blur(2)
    .jpeg({ quality: 95 })
    .toBuffer();
}

describe("accent colours", () => {
  test("must be #rrggbb and dark enough for white text and links", () => {
    const parse = (accentColor: string) =>
      BrandingSchema.safeParse({ template: "classic", accentColor });
    expect(parse("#30503B")).toMatchObject({ success: true, data: { accentColor: "#30503b" } });
    expect(parse("red").success).toBe(false);
    expect(parse("#ffff00").error?.issues[0]?.message).toMatch(/too light/);
    expect(BrandingSchema.safeParse({ template: "neon" }).success).toBe(false);
  });
});

describe("saving the look", () => {
  test("is for Premium senders only", async () => {
    const free = createUser(db);
    expect(() => saveLook(free, { template: "letter" })).toThrow(BrandingRuleError);
    await expect(saveHeaderImage(free, await noisyImage(100, 50))).rejects.toThrow(
      BrandingRuleError,
    );
    expect(getBranding(free.id)).toEqual({
      template: "classic",
      accentColor: null,
      headerImage: null,
    });
  });

  test("a large header image is stored once, at most 1200×400 px and 100 KB", async () => {
    const sender = premiumSender();
    saveLook(sender, { template: "postcard", accentColor: "#1e3a8a" });
    await saveHeaderImage(sender, await noisyImage(3000, 1500));
    const saved = getBranding(sender.id);
    expect(saved.template).toBe("postcard");
    expect(saved.headerImage!.width).toBeLessThanOrEqual(1200);
    expect(saved.headerImage!.height).toBeLessThanOrEqual(400);
    expect(saved.headerImage!.bytes).toBeLessThanOrEqual(100 * 1024);

    const look = newsletterBrandingFor(sender)!;
    expect(look.branding).toEqual({
      template: "postcard",
      accentColor: "#1e3a8a",
      headerImage: { width: saved.headerImage!.width, height: saved.headerImage!.height },
    });
    expect((await sharp(look.headerImage!.content).metadata()).format).toBe("jpeg");

    removeHeaderImage(sender.id);
    expect(newsletterBrandingFor(sender)!.branding.headerImage).toBeNull();
  });

  test("refuses what is not an image, and a file over 2 MB", async () => {
    const sender = premiumSender();
    await expect(saveHeaderImage(sender, Buffer.from("<svg></svg>"))).rejects.toThrow(
      /JPEG, PNG, GIF or WebP/,
    );
    await expect(saveHeaderImage(sender, Buffer.alloc(2 * 1024 * 1024 + 1))).rejects.toThrow(
      /up to 2 MB/,
    );
  });

  test("an image is judged by its header's pixels before it is decoded, and decoded with room in the budget", async () => {
    const sender = premiumSender();
    // A PNG a few hundred bytes long whose header says 200 megapixels (16320 × 12240).
    const huge = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#123" } })
      .png()
      .toBuffer();
    huge.writeUInt32BE(16_320, 16);
    huge.writeUInt32BE(12_240, 20);
    await expect(saveHeaderImage(sender, huge)).rejects.toThrow(
      "This image has too many pixels for the header: please choose a smaller one",
    );

    // No room in the memory budget: told to try later (the page's busy answer), nothing stored.
    const all = memoryBudget.tryReserve(memoryBudget.capacityBytes - memoryBudget.usedBytes)!;
    try {
      const busy = await saveHeaderImage(sender, await noisyImage(600, 200)).catch(
        (error: unknown) => error,
      );
      expect(isMemoryBudgetSpent(busy)).toBe(true);
    } finally {
      all.release();
    }
    expect(getBranding(sender.id).headerImage).toBeNull();
  });

  test("a lapsed Premium sender's newsletters go back to the classic look; the settings stay", () => {
    const sender = premiumSender();
    saveLook(sender, { template: "letter" });
    const lapsed = { ...sender, subscriptionStatus: "canceled" };
    expect(newsletterBrandingFor(lapsed)).toBeNull();
    expect(getBranding(sender.id).template).toBe("letter");
  });
});
