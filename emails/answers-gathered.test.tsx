import fc from "fast-check";
import { DomUtils, parseDocument } from "htmlparser2";
import { renderToStaticMarkup } from "react-dom/server";
import { expect, test } from "vitest";
import { hostileText } from "#tests/support/hostile-text";
import { AnswersGathered, type GatheredFolder, replyHref } from "./answers-gathered";

function gathering(text: { name: string; body: string; title: string }, hearts = [text.name]) {
  const folders: GatheredFolder[] = [
    {
      name: "Family",
      settingsUrl: "http://localhost:3000/folders/1/edit",
      issues: [
        {
          day: "Mon 30 Nov 2026",
          archiveUrl: "http://localhost:3000/folders/1/sent/2",
          items: [
            {
              id: 3,
              title: text.title,
              hearts,
              notes: [{ id: 4, name: text.name, email: "mum@example.com", body: text.body }],
            },
          ],
        },
      ],
    },
  ];
  return renderToStaticMarkup(
    <AnswersGathered firstName="Ada" folders={folders} archiveUrl="http://localhost:3000/save" />,
  );
}

/** The element names of a rendered e-mail, in document order. */
function tagsOf(markup: string) {
  return DomUtils.findAll(() => true, parseDocument(markup).children).map((node) => node.name);
}

test("what recipients wrote, their names and the item's title stay text: no element is added", () => {
  const plain = tagsOf(gathering({ name: "Mum", body: "Lovely", title: "Beach" }));
  fc.assert(
    fc.property(hostileText, hostileText, hostileText, (name, body, title) => {
      const markup = gathering({ name, body, title });
      expect(tagsOf(markup)).toEqual(plain);
      expect(DomUtils.textContent(parseDocument(markup))).toContain(`wrote: “${body}”`);
    }),
  );
});

test("a reply link writes to the note's writer, its subject the item's title", () => {
  fc.assert(
    fc.property(hostileText, (title) => {
      const url = new URL(replyHref("ann+family@example.com", title));
      expect(url.protocol).toBe("mailto:");
      expect(decodeURIComponent(url.pathname)).toBe("ann+family@example.com");
      expect(url.searchParams.get("subject")).toBe(`Re: ${title}`);
    }),
  );
});

test("an item's hearts name ten people and count the rest", () => {
  const names = Array.from({ length: 12 }, (_, index) => `Person ${index + 1}`);
  const text = DomUtils.textContent(
    parseDocument(gathering({ name: "Mum", body: "Hi", title: "Beach" }, names)),
  );
  expect(text).toContain(`♥ from ${names.slice(0, 10).join(", ")} and 2 others`);
});
