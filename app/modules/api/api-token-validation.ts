import { missingMessage } from "~/platform/missing-message";
import { z } from "~/platform/zod";

/** The "New token" form on the profile page, shared by the browser and the action. */
export const API_TOKEN_SCOPES = ["read", "write"] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];
/**
 * Write unless chosen: what the form's own example, a phone shortcut that
 * adds items, needs (docs/decisions/0130-set-ups-on-one-phone.md).
 */
export const DEFAULT_API_TOKEN_SCOPE: ApiTokenScope = "write";

/**
 * How long a new token lives: a choice up to a year, 90 days unless chosen
 * (docs/decisions/0108-password-reset-evicts-everyone.md, "API tokens").
 */
export const API_TOKEN_LIFETIMES_DAYS = [7, 30, 90, 365] as const;
export const DEFAULT_API_TOKEN_LIFETIME_DAYS = 90;
export const MAX_API_TOKEN_LIFETIME_DAYS = 365;

export const TokenLifetimeSchema = z.coerce
  .number()
  .int()
  .refine(
    (days) => (API_TOKEN_LIFETIMES_DAYS as readonly number[]).includes(days),
    "Choose one of the offered lifetimes",
  )
  .default(DEFAULT_API_TOKEN_LIFETIME_DAYS);

export const ApiTokenSchema = z.object({
  name: z
    .string(missingMessage("Please name the token"))
    .trim()
    .min(1, "Please name the token")
    .max(60, "Max characters: 60"),
  scope: z.enum(API_TOKEN_SCOPES).default(DEFAULT_API_TOKEN_SCOPE),
  expiresInDays: TokenLifetimeSchema,
});

export type ApiTokenInput = z.output<typeof ApiTokenSchema>;
