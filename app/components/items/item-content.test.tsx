import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { ItemContent, type ItemContentView } from "./item-content";

function parseContent(item: ItemContentView, titleTag?: "h3" | "h4") {
  const document = parseDocument(renderToString(<ItemContent item={item} titleTag={titleTag} />));
  const all = (tag: string) => DomUtils.getElementsByTagName(tag, document.children);
  const lines = (tag: string) => all(tag).map((element) => DomUtils.textContent(element));
  return { all, lines };
}

describe("ItemContent", () => {
  test("a sent photo still stored shows its thumbnail, linked to the photo", () => {
    const content = parseContent({
      type: "photo",
      title: "Our garden",
      files: [{ key: "k1.jpg", thumbnailKey: "k1-thumb.jpg", name: "garden.jpg", size: 10 }],
    });
    expect(content.all("img")[0]!.attribs).toMatchObject({
      src: "/files/k1-thumb.jpg",
      alt: "garden.jpg",
    });
    expect(content.all("a")[0]!.attribs.href).toBe("/files/k1.jpg");
  });

  test("a video shows its progress while prepared, its refusal, then its poster linked to the MP4", () => {
    const clip = { key: "v.mp4", thumbnailKey: "v-poster.jpg", name: "steps.mp4", size: 10 };
    const preparing = parseContent({
      type: "video",
      title: "Steps",
      files: [clip],
      videoPreparing: 40,
    });
    expect(preparing.lines("p")).toContain("Preparing video… 40%");
    expect(preparing.all("progress")[0]!.attribs.value).toBe("40");
    expect(preparing.all("img")).toHaveLength(0);
    const refused = parseContent({ type: "video", title: "Steps", videoRefused: "Too long." });
    expect(refused.lines("p")).toContain("Too long.");
    const ready = parseContent({ type: "video", title: "Steps", files: [clip] });
    expect(ready.all("img")[0]!.attribs).toMatchObject({
      src: "/files/v-poster.jpg",
      alt: "steps.mp4 (video)",
    });
    expect(ready.all("a")[0]!.attribs.href).toBe("/files/v.mp4");
  });

  test("photos and files no longer stored are named, with their size, and linked nowhere", () => {
    for (const type of ["photo", "file"] as const) {
      const content = parseContent({
        type,
        title: "Old",
        files: [{ key: null, thumbnailKey: null, name: "minutes.pdf", size: 2048 }],
      });
      expect(content.all("a")).toHaveLength(0);
      expect(content.all("img")).toHaveLength(0);
      expect(content.lines("li")).toEqual(["minutes.pdf (no longer stored) (2.0 KB)"]);
    }
  });

  test("the title at the level asked for; no address list when there is no address", () => {
    const content = parseContent({ type: "musing", title: "Tomatoes", urls: [], note: null }, "h4");
    expect(content.lines("h4")).toEqual(["Tomatoes"]);
    expect(content.all("h3")).toHaveLength(0);
    expect(content.all("ul")).toHaveLength(0);
  });
});
