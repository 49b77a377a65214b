import fc from "fast-check";
import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { hostileText } from "#tests/support/hostile-text";
import type { ItemView } from "~/modules/dashboard/dashboard.server";
import { ItemCard, type ItemCardPlace, ItemCards } from "./item-card";

type Element = ReturnType<typeof DomUtils.getElementsByTagName>[number];

const middle: ItemCardPlace = { folderId: 7, isFirst: false, isLast: false };

/** The card as the server sends it and a browser reads it: parsed, not matched as text. */
function parseCard(item: ItemView, place = middle) {
  const document = parseDocument(renderToString(<ItemCard item={item} place={place} />));
  const all = (tag: string) => DomUtils.getElementsByTagName(tag, document.children);
  const text = (element: Element | undefined) => (element ? DomUtils.textContent(element) : null);
  const button = (intent: string) =>
    all("button").find((element) => element.attribs.value === intent);
  const tags = DomUtils.findAll(() => true, document.children).map((element) => element.name);
  return { all, text, button, tags };
}

const link: ItemView = {
  id: 12,
  type: "link",
  title: "An article",
  urls: ["https://example.com/a", "https://example.org/b"],
  commentText: "Made me think of you.",
};

describe("ItemCard", () => {
  test("a link: its title, its addresses opening in a new tab, its comment", () => {
    const card = parseCard(link);
    expect(card.text(card.all("p")[0])).toBe("link");
    expect(card.text(card.all("h3")[0])).toBe("An article");
    const anchors = card
      .all("ul")[0]!
      .children.map((li) => DomUtils.getElementsByTagName("a", li)[0]!);
    expect(anchors.map((anchor) => anchor.attribs)).toEqual(
      link.urls!.map((url) => ({
        href: url,
        target: "_blank",
        rel: "noopener noreferrer nofollow",
      })),
    );
    expect(card.all("p").map((p) => card.text(p))).toContain("Comment: Made me think of you.");
  });

  test("controls: Edit keeps the scroll; Up, Down and Delete post their intent to the item's address", () => {
    const card = parseCard(link);
    const edit = card.all("a").find((anchor) => card.text(anchor) === "Edit")!;
    expect(edit.attribs).toMatchObject({
      href: "/folders/7/items/12/edit",
      "aria-label": "Edit An article",
      "data-delegated-link": "keep-scroll",
    });
    for (const [intent, label] of [
      ["move-up", "Move An article up"],
      ["move-down", "Move An article down"],
      ["delete", "Delete An article"],
    ]) {
      expect(card.button(intent!)!.attribs).toMatchObject({
        type: "submit",
        name: "intent",
        formaction: "/folders/7/item-actions?itemId=12",
        "aria-label": label,
      });
      expect(card.button(intent!)!.attribs.disabled).toBeUndefined();
    }
  });

  test("the first item cannot move up and the last cannot move down", () => {
    const only = parseCard(link, { folderId: 7, isFirst: true, isLast: true });
    expect(only.button("move-up")!.attribs.disabled).toBe("");
    expect(only.button("move-down")!.attribs.disabled).toBe("");
    expect(only.button("delete")!.attribs.disabled).toBeUndefined();
  });

  test("a preview card with its picture, and buttons to remove either", () => {
    const card = parseCard({
      ...link,
      preview: {
        title: "The headline",
        description: "What it is about",
        siteName: "Example News",
        imageKey: "u1/preview.jpg",
      },
    });
    const figure = card.all("figure")[0]!;
    expect(figure.attribs["aria-label"]).toBe("Preview of An article");
    expect(card.all("img")[0]!.attribs).toMatchObject({
      src: "/files/u1/preview.jpg",
      alt: "The headline",
    });
    expect(card.text(figure)).toContain("Example News");
    expect(card.text(figure)).toContain("What it is about");
    expect(card.button("remove-preview-image")!.attribs["aria-label"]).toBe(
      "Remove the preview picture of An article",
    );
    expect(card.button("remove-preview")!.attribs["aria-label"]).toBe(
      "Remove the preview of An article",
    );
  });

  test("a preview without a picture offers only to remove the card", () => {
    const card = parseCard({
      ...link,
      preview: { title: null, description: null, siteName: null, imageKey: null },
    });
    expect(card.all("img")).toHaveLength(0);
    expect(card.button("remove-preview-image")).toBeUndefined();
    expect(card.button("remove-preview")).toBeDefined();
  });

  test("photos show their thumbnails, or the photo when it has none, each opening the full file", () => {
    const card = parseCard({
      id: 3,
      type: "photo",
      title: "Holiday",
      files: [
        { key: "u1/a.jpg", thumbnailKey: "u1/a-thumb.jpg", name: "a.jpg", size: 10 },
        { key: "u1/b.png", thumbnailKey: null, name: "b.png", size: 20 },
      ],
    });
    expect(card.all("img").map((img) => [img.attribs.src, img.attribs.alt])).toEqual([
      ["/files/u1/a-thumb.jpg", "a.jpg"],
      ["/files/u1/b.png", "b.png"],
    ]);
    expect(
      card
        .all("a")
        .slice(0, 2)
        .map((anchor) => anchor.attribs.href),
    ).toEqual(["/files/u1/a.jpg", "/files/u1/b.png"]);
  });

  test("files are listed by name and size", () => {
    const card = parseCard({
      id: 4,
      type: "file",
      title: "Minutes",
      files: [{ key: "u1/m.pdf", thumbnailKey: null, name: "minutes.pdf", size: 2048 }],
    });
    const entry = card.all("ul")[0]!.children[0]!;
    expect(DomUtils.textContent(entry)).toBe("minutes.pdf (2.0 KB)");
    expect(card.all("img")).toHaveLength(0);
  });

  test("a musing's note, a question and whether a reply is hoped for", () => {
    const card = parseCard({
      id: 5,
      type: "musing",
      title: "Tomatoes",
      note: "Red at last.\nCome and pick some.",
      questionText: "When are you free?",
      responseExpectation: "expecting",
    });
    const texts = card.all("p").map((p) => card.text(p));
    expect(texts).toContain("Red at last.\nCome and pick some.");
    expect(texts).toContain("Question: When are you free?");
    expect(texts).toContain("Hoping for a reply");
    expect(card.all("ul")).toHaveLength(0);
  });

  test("whatever a sender or a fetched page typed stays text: no element or attribute is added", () => {
    fc.assert(
      fc.property(
        fc.record({
          title: hostileText,
          url: hostileText,
          comment: hostileText,
          note: hostileText,
          fileName: hostileText,
          previewTitle: hostileText,
        }),
        (typed) => {
          const item = (value: (name: keyof typeof typed) => string): ItemView => ({
            id: 9,
            type: "file",
            title: value("title"),
            urls: [value("url")],
            note: value("note"),
            commentText: value("comment"),
            files: [{ key: "u1/f", thumbnailKey: null, name: value("fileName"), size: 1 }],
            preview: {
              title: value("previewTitle"),
              description: null,
              siteName: null,
              imageKey: "u1/p.jpg",
            },
          });
          const card = parseCard(item((name) => typed[name]));
          const plain = parseCard(item(() => "x"));
          expect(card.tags).toEqual(plain.tags);
          expect(card.text(card.all("h3")[0])).toBe(typed.title);
          expect(card.button("delete")!.attribs["aria-label"]).toBe(`Delete ${typed.title}`);
          expect(card.all("img")[0]!.attribs.alt).toBe(typed.previewTitle);
          expect(card.all("a").map((anchor) => anchor.attribs.href)).toContain(typed.url);
          expect(card.all("p").map((p) => card.text(p))).toContain(typed.note);
          expect(DomUtils.textContent(card.all("ul")[1]!.children[0]!)).toBe(
            `${typed.fileName} (1 B)`,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("ItemCards", () => {
  const items = [11, 12, 13].map((id) => ({ ...link, id, title: `Item ${id}` }));

  /** Each card's list element, with whether it may move up and down. */
  function parseList(page: { offset: number; total: number }) {
    const document = parseDocument(
      renderToString(<ItemCards items={items} page={{ folderId: 7, ...page }} />),
    );
    return document.children.map((node) => {
      const card = node as Element;
      const button = (intent: string) =>
        DomUtils.findOne((element) => element.attribs.value === intent, card.children);
      return {
        tag: card.name,
        id: card.attribs.id,
        className: card.attribs.class,
        title: DomUtils.textContent(DomUtils.getElementsByTagName("h3", card.children)[0]!),
        canMoveUp: button("move-up")!.attribs.disabled === undefined,
        canMoveDown: button("move-down")!.attribs.disabled === undefined,
      };
    });
  }

  test("a card per item, in order, each in its own list element named by the item", () => {
    expect(parseList({ offset: 0, total: 3 })).toEqual([
      {
        tag: "li",
        id: "item-11",
        className: "item-card",
        title: "Item 11",
        canMoveUp: false,
        canMoveDown: true,
      },
      {
        tag: "li",
        id: "item-12",
        className: "item-card",
        title: "Item 12",
        canMoveUp: true,
        canMoveDown: true,
      },
      {
        tag: "li",
        id: "item-13",
        className: "item-card",
        title: "Item 13",
        canMoveUp: true,
        canMoveDown: false,
      },
    ]);
  });

  test("on a later page, only the folder's first and last items are held in place", () => {
    const middlePage = parseList({ offset: 50, total: 200 });
    expect(middlePage.every((card) => card.canMoveUp && card.canMoveDown)).toBe(true);
    const lastPage = parseList({ offset: 50, total: 53 });
    expect(lastPage.map((card) => [card.canMoveUp, card.canMoveDown])).toEqual([
      [true, true],
      [true, true],
      [true, false],
    ]);
  });
});
