import { z } from "~/platform/zod";

/** The note's room: a few words, as long as the sign-off may be. */
export const ISSUE_NOTE_MAX = 500;

/** The folder page's note form and the API's: empty (or the API's null) clears the note. */
export const IssueNoteSchema = z.object({
  issueNote: z
    .string()
    .trim()
    .max(ISSUE_NOTE_MAX, `Max characters: ${ISSUE_NOTE_MAX}`)
    .nullish()
    .transform((note) => note || null),
});
