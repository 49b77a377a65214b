import { describe, expect, test } from "vitest";
import { LIMITS } from "~/modules/plans/limits";
import { NOTE_TOO_LONG, NoteSchema } from "./answer-validation";

describe("NoteSchema", () => {
  test("keeps a note's line breaks as the browser posts them (CRLF) as one \\n each", () => {
    expect(NoteSchema.parse({ intent: "note", body: "Thank you!\r\nSee you Sunday.\r\n" })).toEqual(
      {
        intent: "note",
        body: "Thank you!\nSee you Sunday.",
      },
    );
  });

  test("counts each line break once against the limit", () => {
    const lines = "x\r\n".repeat(LIMITS.answers.noteMaxLength / 2);
    expect(NoteSchema.safeParse({ intent: "note", body: lines }).success).toBe(true);
    const tooLong = NoteSchema.safeParse({
      intent: "note",
      body: "x".repeat(LIMITS.answers.noteMaxLength + 1),
    });
    expect(tooLong.error?.issues.map((issue) => issue.message)).toEqual([NOTE_TOO_LONG]);
  });
});
