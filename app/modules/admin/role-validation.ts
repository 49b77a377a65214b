import { EmailSchema } from "~/modules/auth/user-validation";
import { z } from "~/platform/zod";

/** A role grant: role is admin or user, with an optional reason (docs/product-rules.md, Admin dashboards). */
const Reason = z
  .string()
  .trim()
  .max(200, "Keep the reason under 200 characters")
  .optional()
  .transform((value) => value || undefined);

export const GrantRoleSchema = z.object({
  intent: z.literal("grant"),
  email: EmailSchema,
  role: z.enum(["admin", "user"], { error: "Choose admin or user" }).default("admin"),
  reason: Reason,
});

export const RevokeRoleSchema = z.object({
  intent: z.literal("revoke"),
  userId: z.coerce.number().int().positive(),
  reason: Reason,
});
