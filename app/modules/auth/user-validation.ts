import { LIMITS } from "~/modules/plans/limits";
import { missingMessage } from "~/platform/missing-message";
import { z } from "~/platform/zod";

/**
 * One schema per account form, shared by the browser (conform) and the action.
 * The messages' wording is the product's (docs/product-rules.md, Pages and messages).
 */
export const PASSWORD_RULE = "Must be at least 8 characters long";

export const EmailSchema = z
  .string(missingMessage("Email is required"))
  .trim()
  .min(1, "Email is required")
  .max(254, "Email is too long")
  // After the trim, and beside the two checks above, as `.email()` was: z.email() on its own
  // would check the untrimmed value.
  .check(z.email("Please enter a valid email address"))
  .transform((value) => value.toLowerCase());

const PasswordSchema = z
  .string(missingMessage(PASSWORD_RULE))
  .min(LIMITS.password.minLength, PASSWORD_RULE)
  .max(200, "Password is too long");

function personName(label: "First name" | "Last name") {
  return z
    .string(missingMessage(`${label} is required`))
    .trim()
    .min(1, `${label} is required`)
    .max(LIMITS.profile.nameMaxLength, `${label} too long`);
}

export const TimeZoneSchema = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value && isTimeZone(value) ? value : "UTC"));

export function isTimeZone(value: string) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const LoginSchema = z.object({
  email: EmailSchema,
  password: z.string(missingMessage("Password is required")).min(1, "Password is required"),
  redirectTo: z.string().optional(),
});

export const SignupSchema = z.object({
  firstName: personName("First name"),
  lastName: personName("Last name"),
  email: EmailSchema,
  password: PasswordSchema,
  timeZone: TimeZoneSchema,
  // A referral code never blocks sign-up: anything that cannot be a code is dropped.
  ref: z
    .string()
    .optional()
    .transform((value) => {
      const code = (value ?? "").trim().toUpperCase();
      return /^[A-Z0-9]+$/.test(code) && code.length <= LIMITS.referral.codeMaxLength
        ? code
        : undefined;
    }),
});

/** Forgot password and resend verification: one address to e-mail a link to. */
export const EmailLinkRequestSchema = z.object({ email: EmailSchema });

export const ResetPasswordSchema = z
  .object({
    token: z.string().min(1),
    password: PasswordSchema,
    confirmPassword: z.string(missingMessage("Passwords don't match")),
    /** Every passkey the form listed, and those whose "remove" box stayed ticked. */
    listedPasskey: z.array(z.string().max(1024)).max(100).default([]),
    removePasskey: z.array(z.string().max(1024)).max(100).default([]),
  })
  .refine((value) => value.password === value.confirmPassword, {
    error: "Passwords don't match",
    path: ["confirmPassword"],
  });

export const ProfileSchema = z.object({
  firstName: personName("First name"),
  lastName: personName("Last name"),
  timeZone: z
    .string(missingMessage("Please choose a time zone"))
    .trim()
    .refine(isTimeZone, "Please choose a valid time zone"),
  // The zone the form was rendered with: the zone changes only when the person picked another.
  timeZoneShown: z.string().trim().max(100).optional(),
});
