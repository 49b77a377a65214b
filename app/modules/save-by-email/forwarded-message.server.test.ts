import type { Attachment } from "mailparser";
import { describe, expect, test } from "vitest";
import {
  clip,
  linksWrittenOut,
  numberedTitle,
  ownWords,
  planSave,
  titleFromSubject,
} from "./forwarded-message.server";

function attachment(contentType: string, filename: string, related = false) {
  return { contentType, filename, related, content: Buffer.from("x") } as unknown as Attachment;
}

describe("titleFromSubject", () => {
  test("drops reply and forward prefixes, however many and however spelled", () => {
    expect(titleFromSubject("Fwd: Re: FW:  Lentil soup")).toBe("Lentil soup");
    expect(titleFromSubject("AW: Wg: Termin")).toBe("Termin");
    expect(titleFromSubject(undefined)).toBe("");
  });
});

describe("ownWords", () => {
  test("cuts a signature and a quoted reply", () => {
    const text =
      "Look at this one.\n\nOn Mon, 1 Jun 2026, Bo <bo@example.com> wrote:\n> old text\n> more\n\n-- \nAda\nSent from my phone";
    expect(ownWords(text)).toBe("Look at this one.");
  });

  test("keeps a forwarded message's text, without its header lines", () => {
    const text = [
      "For Sunday!",
      "",
      "---------- Forwarded message ---------",
      "From: Bo <bo@example.com>",
      "Date: Mon, 1 Jun 2026",
      "Subject: Soup",
      "To: Ada <ada@example.com>",
      "",
      "Two onions, one pot of lentils.",
    ].join("\r\n");
    expect(ownWords(text)).toBe("For Sunday!\n\nTwo onions, one pot of lentils.");
  });
});

/** What each planned item is, without the attachments' bytes: type, title, and its links or files or note. */
function summary(plan: ReturnType<typeof planSave<Attachment>>) {
  return plan.items.map((item) =>
    item.type === "link"
      ? [item.type, item.title, item.urls]
      : item.type === "musing"
        ? [item.type, item.title, item.note]
        : [item.type, item.title, item.attachments.map((file) => file.filename)],
  );
}

describe("linksWrittenOut", () => {
  test("a link's words stay, its address written out after them once", () => {
    expect(
      linksWrittenOut(
        "Bread for Sunday and the recipe [https://example.com/bread], or https://example.com/x\n[https://example.com/x].",
      ),
    ).toBe(
      "Bread for Sunday and the recipe (https://example.com/bread), or https://example.com/x.",
    );
    expect(linksWrittenOut("Bread and the recipe <https://example.com/bread>")).toBe(
      "Bread and the recipe (https://example.com/bread)",
    );
  });

  test("e-mail addresses and inline pictures in brackets go; addresses written as people write them stay", () => {
    expect(linksWrittenOut("Ask Bo [bo@example.com] [cid:logo@x] or Bo <bo@example.com>")).toBe(
      "Ask Bo or Bo <bo@example.com>",
    );
  });
});

describe("clip and numberedTitle", () => {
  test("a note is cut before a word or an address it would break", () => {
    expect(clip("see https://example.com/long", 10)).toBe("see");
    expect(clip("one two", 7)).toBe("one two");
  });

  test("the first title is the subject, the others numbered within the title limit", () => {
    expect(numberedTitle("Soup", 0)).toBe("Soup");
    expect(numberedTitle("Soup", 2)).toBe("Soup (3)");
    expect(numberedTitle("a".repeat(300), 1)).toBe(`${"a".repeat(196)} (2)`);
  });
});

describe("planSave", () => {
  test("one message, one thought: a link, a photo and a few words make two items with the words, links written out, as each one's note", () => {
    const plan = planSave({
      subject: "Fwd: Bread",
      text: "Bread for Sunday and the recipe <https://example.com/bread>, love.\n\n-- \nAda\nSent from my phone",
      attachments: [attachment("image/jpeg", "IMG_2041.jpg")],
    });
    expect(plan.note).toBe("Bread for Sunday and the recipe (https://example.com/bread), love.");
    expect(summary(plan)).toEqual([
      ["link", "Bread", ["https://example.com/bread"]],
      ["photo", "Bread (2)", ["IMG_2041.jpg"]],
    ]);
  });

  test("links become one link item of up to five; the rest go in a musing with the words", () => {
    const urls = Array.from({ length: 7 }, (_, index) => `https://example.com/${index}`);
    const plan = planSave({
      subject: "Reading",
      text: `Worth it: ${urls.slice(0, 6).join(", ")}.\n\n-- \n${urls[6]}`,
      attachments: [],
    });
    expect(plan.note).toBe(`Worth it: ${urls.slice(0, 6).join(", ")}.`);
    expect(summary(plan)).toEqual([
      ["link", "Reading", urls.slice(0, 5)],
      ["musing", "Reading (2)", `${plan.note}\n\n${urls[6]}`],
    ]);
  });

  test("addresses alone are no note: the items wait for one", () => {
    const plan = planSave({
      subject: "Soup",
      text: "https://example.com/soup",
      attachments: [attachment("image/png", "soup.png")],
    });
    expect(plan.note).toBe("");
    expect(summary(plan)).toEqual([
      ["link", "Soup", ["https://example.com/soup"]],
      ["photo", "Soup (2)", ["soup.png"]],
    ]);
  });

  test("photos and files are grouped by the per-item limits; layout pictures and other types are not saved", () => {
    const plan = planSave({
      subject: "",
      text: "",
      attachments: [
        ...Array.from({ length: 4 }, (_, index) => attachment("image/jpeg", `p${index}.jpg`)),
        attachment("image/png", "logo.png", true),
        attachment("application/pdf", "menu.pdf"),
        attachment("application/zip", "all.zip"),
      ],
    });
    expect(summary(plan)).toEqual([
      ["photo", "p0.jpg", ["p0.jpg", "p1.jpg", "p2.jpg"]],
      ["photo", "p0.jpg (2)", ["p3.jpg"]],
      ["file", "p0.jpg (3)", ["menu.pdf"]],
    ]);
    expect(plan.skipped).toEqual(["all.zip"]);
  });

  test("an iPhone's HEIC is a photo, by its type or, sent as bytes, by its name", () => {
    const plan = planSave({
      subject: "Beach",
      text: "",
      attachments: [
        attachment("image/heic", "IMG_2041.HEIC"),
        attachment("image/heif", "IMG_2042.heif"),
        attachment("application/octet-stream", "IMG_2043.heic"),
        attachment("application/octet-stream", "notes.bin"),
      ],
    });
    expect(summary(plan)).toEqual([
      ["photo", "Beach", ["IMG_2041.HEIC", "IMG_2042.heif", "IMG_2043.heic"]],
    ]);
    expect(plan.skipped).toEqual(["notes.bin"]);
  });

  test("each video is a video item of its own, by its type or, sent as bytes, by its name; the words are every item's", () => {
    const plan = planSave({
      subject: "Fwd: First steps",
      text: "She walked!",
      attachments: [
        attachment("image/jpeg", "before.jpg"),
        attachment("video/quicktime", "IMG_0007.MOV"),
        attachment("video/mp4", "again.mp4"),
        attachment("application/octet-stream", "third.webm"),
        attachment("application/pdf", "card.pdf"),
        attachment("video/x-msvideo", "old.avi"),
      ],
    });
    expect(summary(plan)).toEqual([
      ["photo", "First steps", ["before.jpg"]],
      ["video", "First steps (2)", ["IMG_0007.MOV"]],
      ["video", "First steps (3)", ["again.mp4"]],
      ["video", "First steps (4)", ["third.webm"]],
      ["file", "First steps (5)", ["card.pdf"]],
    ]);
    expect(plan.note).toBe("She walked!");
    expect(plan.skipped).toEqual(["old.avi"]);
  });

  test("an HTML-only message's links, which mailparser writes as 'label [address]', keep their words and are written out", () => {
    const plan = planSave({
      subject: "Soup",
      text: "For Sunday, the soup [https://example.com/soup].\n\nLove, Ada",
      attachments: [],
    });
    expect(summary(plan)).toEqual([["link", "Soup", ["https://example.com/soup"]]]);
    expect(plan.note).toBe("For Sunday, the soup (https://example.com/soup).\n\nLove, Ada");
  });

  test("text alone is a musing, its words within the note limit", () => {
    const plan = planSave({ subject: "Note", text: "a".repeat(5000), attachments: [] });
    expect(plan.note).toHaveLength(1000);
    expect(summary(plan)).toEqual([["musing", "Note", plan.note]]);
  });
});
