import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "~/platform/zod";
import { invariantResponse } from "./errors.server";

/**
 * Parses an action's forms with their one `z.discriminatedUnion("intent", …)`.
 * An intent that none of them names comes from no page of ours, so it is a
 * 400 rather than a message for the person; any other mistake comes back in
 * the submission, for `submission.reply()` to show next to its field with
 * what was typed.
 */
export function parseIntentForm<
  Schema extends z.ZodDiscriminatedUnion<readonly z.core.$ZodTypeDiscriminable[], "intent">,
>(formData: FormData, schema: Schema) {
  const submission = parseWithZod(formData, { schema });
  invariantResponse(
    submission.status === "success" || !submission.error?.intent,
    "Bad Request",
    400,
  );
  return submission;
}
