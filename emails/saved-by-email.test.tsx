import { describe, expect, it } from "vitest";
import { renderEmail } from "#emails/render.server";
import { SavedByEmail, type SavedByEmailItem } from "#emails/saved-by-email";

/** The answer to a message saved by e-mail (docs/decisions/0197-one-message-one-thought.md), as plain text on one line. */
function answer(items: SavedByEmailItem[], problem: string | null = null) {
  const { text } = renderEmail(
    <SavedByEmail
      firstName="Ada"
      folderName="Family news"
      items={items}
      problem={problem}
      skipped={[]}
      folderUrl="http://localhost:3000/folders/1"
    />,
  );
  return text.replace(/\s+/g, " ");
}

const link = { type: "link", title: "Soup", files: 0 } as const;
const photos = { type: "photo", title: "Soup (2)", files: 2 } as const;

describe("the answer to a message saved by e-mail", () => {
  it("names what goes out with the next issue", () => {
    const text = answer([
      { ...link, waitsForNote: false },
      { ...photos, waitsForNote: false },
    ]);
    expect(text).toContain(
      "Go out with the next issue of Family news: the link “Soup” and the photos “Soup (2)”.",
    );
    expect(text).not.toMatch(/wait/i);
  });

  it("names what waits for a note, and why, without claiming it goes out", () => {
    const text = answer([{ ...photos, waitsForNote: true }]);
    expect(text).toContain("Waits for a note: the photos “Soup (2)”.");
    expect(text).toContain("a link, photo or file is sent only with a comment or a question");
    expect(text).not.toMatch(/goes? out with/i);
  });

  it("says a video is prepared first and may wait for the next issue", () => {
    const text = answer([{ type: "video", title: "First steps", files: 1, waitsForNote: false }]);
    expect(text).toContain("Goes out with the next issue of Family news: the video “First steps”.");
    expect(text).toContain(
      "A video is prepared for sending first, which takes a minute or two; one that is not ready by the send waits for the next issue, and you are told.",
    );
    expect(answer([{ ...link, waitsForNote: false }])).not.toContain("prepared");
  });

  it("says why nothing was saved", () => {
    const text = answer([], "It had no text, links, photos, videos or files.");
    expect(text).toContain(
      "Nothing from your message was saved. It had no text, links, photos, videos or files.",
    );
    expect(text).not.toMatch(/goes? out with|wait/i);
  });
});
