import { parseWithZod } from "@conform-to/zod/v4";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { z } from "~/platform/zod";
import { formBoolean } from "./form-boolean";

const Schema = z.object({ flag: formBoolean() });
const yes = ["true", "on", "1", "yes", true, 1] as const;
const no = ["false", "off", "0", "no", false, 0] as const;

/** Upper case, lower case, or mixed, with spaces around: how hand-written clients send it. */
const spelled = (words: readonly (string | boolean | number)[]) =>
  fc
    .tuple(
      fc.constantFrom(...words),
      fc.array(fc.boolean(), { maxLength: 5 }),
      fc.constantFrom("", " ", "\t"),
    )
    .map(([word, upper, pad]) =>
      typeof word === "string"
        ? `${pad}${[...word].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join("")}${pad}`
        : word,
    );

describe("formBoolean", () => {
  test("every spelling of yes is true and of no is false, in JSON", () => {
    fc.assert(
      fc.property(spelled(yes), (value) => {
        expect(Schema.parse({ flag: value }).flag).toBe(true);
      }),
    );
    fc.assert(
      fc.property(spelled(no), (value) => {
        expect(Schema.parse({ flag: value }).flag).toBe(false);
      }),
    );
  });

  test("the same through a form parsed by conform, where a missing box is false", () => {
    fc.assert(
      fc.property(spelled(yes.filter((word) => typeof word === "string")), (value) => {
        const form = new FormData();
        form.append("flag", String(value));
        const submission = parseWithZod(form, { schema: Schema });
        expect(submission.status === "success" && submission.value.flag).toBe(true);
      }),
    );
    const submission = parseWithZod(new FormData(), { schema: Schema });
    expect(submission.status === "success" && submission.value.flag).toBe(false);
  });

  test("anything else is refused, never read as either", () => {
    const words = new Set([...yes, ...no].map((word) => String(word)));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string().filter((text) => !words.has(text.trim().toLowerCase())),
          fc.integer().filter((number) => number !== 0 && number !== 1),
          fc.constant(null),
        ),
        (value) => {
          expect(Schema.safeParse({ flag: value }).success).toBe(false);
        },
      ),
    );
  });
});
