import { missingMessage } from "~/platform/missing-message";
import { z } from "~/platform/zod";
import { CodeSchema } from "./two-factor-validation";

/** The forms of "Confirm it's you", shared by the browser (conform) and the action. */
export const ReauthenticateSchema = z.discriminatedUnion("intent", [
  z.object({
    intent: z.literal("password"),
    password: z.string(missingMessage("Password is required")).min(1, "Password is required"),
    redirectTo: z.string().optional(),
  }),
  z.object({ intent: z.literal("code"), code: CodeSchema, redirectTo: z.string().optional() }),
  z.object({ intent: z.literal("email"), redirectTo: z.string().optional() }),
]);

export const PasswordReauthenticationSchema = ReauthenticateSchema.options[0];
export const CodeReauthenticationSchema = ReauthenticateSchema.options[1];
