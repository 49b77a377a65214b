import type { z } from "~/platform/zod";

/**
 * A schema's message for a field that is missing, zod 3's `required_error` in zod 4's terms:
 * conform sends an empty field as missing, so this is also the message for a field left blank.
 * A value of another type keeps zod's own message, as it did.
 */
export function missingMessage(message: string) {
  return {
    error: (issue: z.core.$ZodRawIssue) => (issue.input === undefined ? message : undefined),
  };
}
