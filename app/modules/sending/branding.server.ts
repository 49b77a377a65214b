import { eq } from "drizzle-orm";
import type { OutputInfo } from "sharp";
import { senderBranding } from "#db/schema";
import type { User } from "#db/types";
import type { HeaderImageBytes } from "#emails/newsletter.server";
import {
  NEWSLETTER_TEMPLATES,
  type NewsletterBranding,
  type NewsletterTemplate,
} from "#emails/newsletter-themes";
import { LIMITS } from "~/modules/plans/limits";
import { isPremium } from "~/modules/plans/quota.server";
import { db } from "~/platform/db.server";
import { RuleError } from "~/platform/errors.server";
import { isMemoryBudgetSpent } from "~/platform/memory-budget.server";
import {
  decodeCeilingBytes,
  decodeOutputBytes,
  loadSharp,
  sharpDecodeCost,
  withDecodeRoom,
} from "~/platform/sharp.server";
import { z } from "~/platform/zod";
import { contrastWithWhite, HEX_COLOUR, MIN_ACCENT_CONTRAST, TOO_LIGHT } from "./accent-colour";

/**
 * Premium senders' newsletter look
 * (docs/decisions/0065-newsletter-templates-and-branding.md): a template, an accent colour dark enough for white text and
 * links, and a header image re-encoded small enough to ride in every message.
 */
export class BrandingRuleError extends RuleError {}

export const PREMIUM_ONLY = "Newsletter templates and branding are Premium features.";

/** What a header image upload may be before it is re-encoded. */
export const HEADER_UPLOAD_MAX_BYTES = 2 * 1024 * 1024;
/** What is stored and sent with every newsletter, after re-encoding. */
export const HEADER_STORED_MAX_BYTES = 100 * 1024;
/** Twice the e-mail's 600 px for sharp screens; a banner, not a poster. */
const HEADER_MAX_WIDTH = 1200;
const HEADER_MAX_HEIGHT = 400;
export const BrandingSchema = z.object({
  template: z.enum(NEWSLETTER_TEMPLATES, { error: "Please choose a template" }),
  accentColor: z
    .string()
    .trim()
    .regex(HEX_COLOUR, "Please enter a colour as # and six hex digits, like #30503b")
    .refine((colour) => contrastWithWhite(colour) >= MIN_ACCENT_CONTRAST, TOO_LIGHT)
    .transform((colour) => colour.toLowerCase())
    .optional(),
});

/**
 * The Newsletter look page's forms other than the header image's upload,
 * which its encoding tells apart.
 */
export const BrandingActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("remove-image") }),
  BrandingSchema.extend({ intent: z.literal("save-look") }),
]);

type Sender = User;

export type BrandingSettings = {
  template: NewsletterTemplate;
  accentColor: string | null;
  headerImage: { width: number; height: number; bytes: number } | null;
};

export function getBranding(userId: number): BrandingSettings {
  const row = db.select().from(senderBranding).where(eq(senderBranding.userId, userId)).get();
  return {
    template: row?.template ?? "classic",
    accentColor: row?.accentColor ?? null,
    headerImage:
      row?.headerImage && row.headerImageWidth && row.headerImageHeight
        ? {
            width: row.headerImageWidth,
            height: row.headerImageHeight,
            bytes: row.headerImage.length,
          }
        : null,
  };
}

function requirePremium(sender: Sender) {
  if (!isPremium(sender)) throw new BrandingRuleError(PREMIUM_ONLY);
}

export function saveLook(
  sender: Sender,
  look: { template: NewsletterTemplate; accentColor?: string | undefined },
) {
  requirePremium(sender);
  const values = { template: look.template, accentColor: look.accentColor ?? null };
  db.insert(senderBranding)
    .values({ userId: sender.id, ...values })
    .onConflictDoUpdate({
      target: senderBranding.userId,
      set: { ...values, updatedAt: new Date() },
    })
    .run();
}

const NOT_AN_IMAGE = "Please choose a JPEG, PNG, GIF or WebP image for the header";
const TOO_MANY_PIXELS =
  "This image has too many pixels for the header: please choose a smaller one";

/**
 * Re-encodes an uploaded header image to at most 1200×400 px and 100 KB, and
 * stores it. Its size is judged from its header as a photo's is; it is
 * decoded in the decode lane with its estimate charged to the memory budget
 * (withDecodeRoom): a MemoryBudgetSpentError when there is no room in time.
 */
export async function saveHeaderImage(sender: Sender, upload: Buffer) {
  requirePremium(sender);
  if (upload.length > HEADER_UPLOAD_MAX_BYTES) {
    throw new BrandingRuleError("The header image can be up to 2 MB");
  }
  let encoded: { data: Buffer; info: OutputInfo; type: string };
  try {
    const sharp = await loadSharp();
    const options = { limitInputPixels: LIMITS.photo.maxPixels };
    const metadata = await sharp(upload, { limitInputPixels: false }).metadata();
    if (!metadata.format || !["jpeg", "png", "gif", "webp"].includes(metadata.format)) {
      throw new BrandingRuleError(NOT_AN_IMAGE);
    }
    const pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
    const cost = sharpDecodeCost(metadata);
    const estimate =
      pixels * cost.bytesPerPixel + decodeOutputBytes(HEADER_MAX_WIDTH) + upload.length;
    if (pixels > LIMITS.photo.maxPixels || estimate > decodeCeilingBytes()) {
      throw new BrandingRuleError(TOO_MANY_PIXELS);
    }
    encoded = await withDecodeRoom("the header image", async (room) => {
      await room.charge(estimate);
      const resized = sharp(upload, options).rotate().resize({
        width: HEADER_MAX_WIDTH,
        height: HEADER_MAX_HEIGHT,
        fit: "inside",
        withoutEnlargement: true,
      });
      return metadata.hasAlpha
        ? {
            ...(await resized.png({ compressionLevel: 9, palette: true }).toBuffer({
              resolveWithObject: true,
            })),
            type: "image/png",
          }
        : {
            ...(await resized.jpeg({ quality: 80, mozjpeg: true }).toBuffer({
              resolveWithObject: true,
            })),
            type: "image/jpeg",
          };
    });
  } catch (error) {
    if (error instanceof BrandingRuleError || isMemoryBudgetSpent(error)) throw error;
    throw new BrandingRuleError(NOT_AN_IMAGE);
  }
  if (encoded.data.length > HEADER_STORED_MAX_BYTES) {
    throw new BrandingRuleError(
      "This image stays over 100 KB even made smaller: please choose a simpler one",
    );
  }
  const values = {
    headerImage: encoded.data,
    headerImageType: encoded.type,
    headerImageWidth: encoded.info.width,
    headerImageHeight: encoded.info.height,
  };
  db.insert(senderBranding)
    .values({ userId: sender.id, ...values })
    .onConflictDoUpdate({
      target: senderBranding.userId,
      set: { ...values, updatedAt: new Date() },
    })
    .run();
}

export function removeHeaderImage(userId: number) {
  db.update(senderBranding)
    .set({
      headerImage: null,
      headerImageType: null,
      headerImageWidth: null,
      headerImageHeight: null,
      updatedAt: new Date(),
    })
    .where(eq(senderBranding.userId, userId))
    .run();
}

/** The stored header image, for the branding page's preview. */
export function headerImageOf(userId: number): HeaderImageBytes | null {
  const row = db.select().from(senderBranding).where(eq(senderBranding.userId, userId)).get();
  if (!row?.headerImage || !row.headerImageType) return null;
  return { content: row.headerImage, contentType: row.headerImageType };
}

/**
 * The look of a sender's newsletters: theirs while Premium is active, the
 * classic look otherwise (the settings are kept for when it comes back).
 */
export function newsletterBrandingFor(
  sender: Pick<Sender, "id" | "subscriptionTier" | "subscriptionStatus">,
): { branding: NewsletterBranding; headerImage: HeaderImageBytes | null } | null {
  if (!isPremium(sender)) return null;
  const row = db.select().from(senderBranding).where(eq(senderBranding.userId, sender.id)).get();
  if (!row) return null;
  const headerImage =
    row.headerImage && row.headerImageType
      ? { content: row.headerImage, contentType: row.headerImageType }
      : null;
  return {
    branding: {
      template: row.template,
      accentColor: row.accentColor,
      headerImage:
        headerImage && row.headerImageWidth && row.headerImageHeight
          ? { width: row.headerImageWidth, height: row.headerImageHeight }
          : null,
    },
    headerImage,
  };
}
