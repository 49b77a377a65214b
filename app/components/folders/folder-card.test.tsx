import fc from "fast-check";
import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { hostileText } from "#tests/support/hostile-text";
import type { FolderSummary } from "~/modules/dashboard/dashboard.server";
import { FolderCards } from "./folder-card";

type Element = ReturnType<typeof DomUtils.getElementsByTagName>[number];

function folder(id: number, overrides: Partial<FolderSummary> = {}): FolderSummary {
  return {
    id,
    name: `Folder ${id}`,
    recipientLabel: "Mum <mum@example.com>",
    recipientCountLabel: "2 recipients",
    isPaused: false,
    pauseReason: null,
    isUnsubscribed: false,
    everyoneLeft: null,
    unsubscribedCount: 0,
    frequencyLabel: "Weekly",
    nextLabel: "Mon 30 Nov",
    scheduleLine: "Weekly on Monday at 00:01",
    issueNote: null,
    skippedLabel: null,
    itemCount: 3,
    waiting: [],
    totalSize: 2048,
    maxSize: 20 * 1024 * 1024,
    sendStatus: null,
    ...overrides,
  };
}

/** The list as the server sends it and a browser reads it: each card's parts, parsed, not matched as text. */
function parseList(folders: FolderSummary[], selectedId?: number) {
  const document = parseDocument(
    renderToString(<FolderCards folders={folders} selectedId={selectedId} />),
  );
  return document.children.map((node) => {
    const card = node as Element;
    const all = (tag: string) => DomUtils.getElementsByTagName(tag, card.children);
    const button = (intent: string) => all("button").find((b) => b.attribs.value === intent)!;
    return {
      card,
      all,
      button,
      open: all("a")[0]!,
      lines: DomUtils.getElementsByTagName("p", all("a")[0]!.children).map((p) =>
        DomUtils.textContent(p),
      ),
      tags: DomUtils.findAll(() => true, [card]).map((element) => element.name),
    };
  });
}

describe("FolderCards", () => {
  test("the folders in order, the selected one marked as the current page", () => {
    const cards = parseList([folder(1), folder(2), folder(3)], 2);
    expect(cards.map((card) => card.card.name)).toEqual(["li", "li", "li"]);
    expect(cards.map((card) => card.open.attribs.href)).toEqual([
      "/folders/1",
      "/folders/2",
      "/folders/3",
    ]);
    expect(cards.map((card) => card.open.attribs["aria-current"])).toEqual([
      undefined,
      "page",
      undefined,
    ]);
    expect(cards[1]!.card.attribs.class).toContain("ring-2");
    expect(cards[0]!.card.attribs.class).not.toContain("ring-2");
    expect(cards[0]!.lines).toEqual([
      "2 recipients",
      "Folder 1",
      "Weekly · 3 items · 2.0 KB",
      "Next: Mon 30 Nov",
    ]);
  });

  test("the first folder cannot move up and the last cannot move down; every button posts to its folder", () => {
    const cards = parseList([folder(1), folder(2), folder(3)]);
    const movable = cards.map((card) => [
      card.button("move-up").attribs.disabled === undefined,
      card.button("move-down").attribs.disabled === undefined,
    ]);
    expect(movable).toEqual([
      [false, true],
      [true, true],
      [true, false],
    ]);
    for (const [index, card] of cards.entries()) {
      for (const button of card.all("button")) {
        expect(button.attribs).toMatchObject({
          type: "submit",
          name: "intent",
          formaction: `/folders/${index + 1}`,
        });
      }
    }
    expect(cards[0]!.button("move-down").attribs["aria-label"]).toBe("Move Folder 1 down");
  });

  test("the menu: settings and delete keep the scroll, pause says what it will do", () => {
    const [running, paused, unsubscribed] = parseList([
      folder(1),
      folder(2, { isPaused: true, frequencyLabel: "Paused", nextLabel: "Paused" }),
      folder(3, { isUnsubscribed: true }),
    ]);
    expect(running!.all("summary")[0]!.attribs["aria-label"]).toBe("Actions for Folder 1");
    expect(
      running!
        .all("a")
        .slice(1)
        .map((link) => link.attribs),
    ).toMatchObject([
      { href: "/folders/1/edit", "data-delegated-link": "keep-scroll" },
      { href: "/folders/1/delete", "data-delegated-link": "keep-scroll" },
    ]);
    expect(DomUtils.textContent(running!.button("toggle-pause"))).toBe("Pause Delivery");
    expect(DomUtils.textContent(paused!.button("toggle-pause"))).toBe("Resume Delivery");
    expect(paused!.lines[2]).toBe("Paused · 3 items · 2.0 KB");
    expect(unsubscribed!.button("toggle-pause").attribs.disabled).toBe("");
    expect(running!.button("toggle-pause").attribs.disabled).toBeUndefined();
  });

  test("a folder every recipient left says so, with the one next step: adding a recipient", () => {
    const [running, left] = parseList([
      folder(1),
      folder(2, {
        name: "Family news",
        isUnsubscribed: true,
        everyoneLeft: "Dad unsubscribed",
        recipientCountLabel: "No active recipients",
      }),
    ]);
    const step = (card: typeof running) =>
      card!.all("a").filter((link) => DomUtils.textContent(link) === "Add a recipient");
    expect(step(running)).toEqual([]);
    const [add, ...more] = step(left);
    expect(more).toEqual([]);
    expect(add!.attribs).toMatchObject({
      href: "/folders/2/edit",
      "aria-label": "Add a recipient to Family news",
    });
    expect(DomUtils.textContent(left!.card)).toContain("Dad unsubscribed: nobody gets it now.");
  });

  test("whatever a sender typed stays text: no element or attribute is added", () => {
    const [plain] = parseList([folder(1)]);
    fc.assert(
      fc.property(fc.record({ name: hostileText, recipientCountLabel: hostileText }), (typed) => {
        const [card] = parseList([folder(1, typed)]);
        expect(card!.tags).toEqual(plain!.tags);
        expect(card!.lines.slice(0, 2)).toEqual([typed.recipientCountLabel, typed.name]);
        expect(card!.button("move-up").attribs["aria-label"]).toBe(`Move ${typed.name} up`);
        expect(card!.all("summary")[0]!.attribs["aria-label"]).toBe(`Actions for ${typed.name}`);
      }),
      { numRuns: 300 },
    );
  });
});
