import type { Attachment } from "mailparser";
import { describe, expect, test } from "vitest";
import { ownWords, planSave, titleFromSubject } from "./forwarded-message.server";

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

describe("planSave", () => {
  test("links become one link item of up to five; the rest are kept for a musing", () => {
    const urls = Array.from({ length: 7 }, (_, index) => `https://example.com/${index}`);
    const plan = planSave({
      subject: "Reading",
      text: `Worth it: ${urls.join(", ")}.`,
      attachments: [],
    });
    expect(plan.links).toEqual(urls.slice(0, 5));
    expect(plan.moreLinks).toEqual(urls.slice(5));
    expect(plan.text).toBe("Worth it:");
    expect(plan.title).toBe("Reading");
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
    expect(plan.photos.map((group) => group.map((file) => file.filename))).toEqual([
      ["p0.jpg", "p1.jpg", "p2.jpg"],
      ["p3.jpg"],
    ]);
    expect(plan.files.map((group) => group.length)).toEqual([1]);
    expect(plan.skipped).toEqual(["all.zip"]);
    expect(plan.title).toBe("p0.jpg");
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
    expect(plan.photos.map((group) => group.map((file) => file.filename))).toEqual([
      ["IMG_2041.HEIC", "IMG_2042.heif", "IMG_2043.heic"],
    ]);
    expect(plan.skipped).toEqual(["notes.bin"]);
  });

  test("an HTML-only message's links, which mailparser writes as 'label [address]', leave no brackets in the words", () => {
    const plan = planSave({
      subject: "Soup",
      text: "For Sunday, the soup [https://example.com/soup].\n\nLove, Ada",
      attachments: [],
    });
    expect(plan.links).toEqual(["https://example.com/soup"]);
    expect(plan.text).toBe("For Sunday, the soup\n\nLove, Ada");
  });

  test("text alone keeps its words within the note limit", () => {
    const plan = planSave({ subject: "Note", text: "a".repeat(5000), attachments: [] });
    expect(plan.text).toHaveLength(1000);
    expect(plan.links).toEqual([]);
  });
});
