import { missingMessage } from "~/platform/missing-message";
import { z } from "~/platform/zod";

/** The code forms of two-factor sign-in, shared by the browser (conform) and the actions. */
const CODE_REQUIRED = "Enter the code from your authenticator app";

export const CodeSchema = z
  .string(missingMessage(CODE_REQUIRED))
  .trim()
  .min(1, CODE_REQUIRED)
  .max(40, "That code is too long");

/** The log-in step: an authenticator code or a recovery code. */
export const SecondFactorSchema = z.object({
  code: CodeSchema,
  trustDevice: z.boolean().optional(),
});

/** Set-up's first code, and the code that turns two-factor sign-in off. */
export const TwoFactorCodeSchema = z.object({
  intent: z.enum(["confirm", "disable", "new-recovery-codes"]),
  code: CodeSchema,
});

/** Every form of the two-factor settings: starting set-up, and the code forms. */
export const TwoFactorSettingsSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("start") }),
  TwoFactorCodeSchema,
]);
