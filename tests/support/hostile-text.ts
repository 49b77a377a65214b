import fc from "fast-check";

/**
 * Text as a sender or a fetched page might type it to break out of HTML:
 * any string, and strings built from markup's own characters and words.
 * For the tests that show the cards keep whatever is typed as text.
 */
export const hostileText = fc.oneof(
  fc.string({ minLength: 1 }),
  fc
    .array(
      fc.constantFrom("<", ">", "&", '"', "'", "=", "/", " ", "script", "img", "onerror", "a"),
      { minLength: 1, maxLength: 12 },
    )
    .map((parts) => parts.join("")),
);
