import { LIMITS } from "~/modules/plans/limits";
import { missingMessage } from "~/platform/missing-message";
import { z } from "~/platform/zod";

/**
 * The answer page's two forms (app/routes/a.$code.tsx), told apart by
 * `intent`; shared by the browser and the action.
 */
export const HeartSchema = z.object({
  intent: z.literal("heart"),
  /** What the press asks for: the page shows "take back" once a heart is given. */
  hearted: z.enum(["true", "false"]).transform((value) => value === "true"),
});

export const NOTE_TOO_LONG = `Please keep your note under ${LIMITS.answers.noteMaxLength} characters.`;

export const NoteSchema = z.object({
  intent: z.literal("note"),
  body: z
    .string(missingMessage("Please write a few words first."))
    // Browsers post a textarea's line breaks as CRLF: a note keeps "\n", each counted once.
    .transform((text) => text.replace(/\r\n?/g, "\n"))
    .pipe(
      z
        .string()
        .trim()
        .min(1, "Please write a few words first.")
        .max(LIMITS.answers.noteMaxLength, NOTE_TOO_LONG),
    ),
});

export const AnswerSchema = z.discriminatedUnion("intent", [HeartSchema, NoteSchema]);
