import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { withoutSiteName } from "./item-titles";

describe("a page's title without its site's name", () => {
  test.each([
    [
      "Bread for beginners | The Guardian",
      "https://www.theguardian.com/food/bread",
      null,
      "Bread for beginners",
    ],
    ["Lullaby for Sam - YouTube", "https://www.youtube.com/watch?v=abc", null, "Lullaby for Sam"],
    ["Lullaby for Sam - YouTube", "https://youtu.be/abc", "YouTube", "Lullaby for Sam"],
    ["Storm warning – BBC News", "https://www.bbc.co.uk/news/uk-1", null, "Storm warning"],
    ["Sourdough — Wikipedia", "https://en.wikipedia.org/wiki/Sourdough", null, "Sourdough"],
    ["Tomato soup · Serious Eats", "https://example.com/soup", "Serious Eats", "Tomato soup"],
  ])("%s", (title, url, siteName, expected) => {
    expect(withoutSiteName(title, url, siteName)).toBe(expected);
  });

  test.each([
    // The last part is not the site: kept whole.
    ["Cats - The Musical", "https://www.theguardian.com/stage/cats", null],
    ["Part 1 | Part 2", "https://example.com/", null],
    // Nothing but the site's name: kept.
    [" | YouTube", "https://www.youtube.com/", null],
    ["YouTube", "https://www.youtube.com/", null],
    // Hyphens inside words are not separators.
    ["Long-term care", "https://long.example/", null],
    ["A title", "not an address", "Site"],
  ])("%s stays as it is", (title, url, siteName) => {
    expect(withoutSiteName(title, url, siteName)).toBe(title);
  });

  test("whatever the title, what is left is its start, and never empty", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }),
        fc.constantFrom(" | ", " - ", " – ", " — ", " · ", " :: ", "|", "-"),
        fc.string({ maxLength: 30 }),
        fc.webUrl(),
        fc.option(fc.string({ maxLength: 20 })),
        (start, separator, end, url, siteName) => {
          const title = `${start}${separator}${end}`;
          const result = withoutSiteName(title, url, siteName);
          expect(title.startsWith(result)).toBe(true);
          if (title.trim()) expect(result.trim()).not.toBe("");
        },
      ),
    );
  });
});
