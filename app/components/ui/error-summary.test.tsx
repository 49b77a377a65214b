import { DomUtils, parseDocument } from "htmlparser2";
import { renderToString } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { ErrorSummary } from "./error-summary";

describe("ErrorSummary", () => {
  test("takes the focus without JavaScript and links each problem to its field", () => {
    const html = renderToString(
      <ErrorSummary
        answer={{}}
        errors={[
          { title: "Upload Failed", message: '"fake.jpg" is not a photo.', fieldId: "item-files" },
          { message: "The title needs a change", fieldId: "item-title" },
          { message: "Please try again." },
        ]}
      />,
    );
    const document = parseDocument(html);
    const [summary] = DomUtils.getElementsByTagName("div", document.children);
    expect(summary!.attribs).toMatchObject({ role: "alert", tabindex: "-1", autofocus: "" });
    expect(DomUtils.textContent(DomUtils.getElementsByTagName("h3", document.children)[0]!)).toBe(
      "There is a problem",
    );
    const links = DomUtils.getElementsByTagName("a", document.children);
    expect(links.map((link) => [link.attribs.href, DomUtils.textContent(link)])).toEqual([
      ["#item-files", 'Upload Failed: "fake.jpg" is not a photo.'],
      ["#item-title", "The title needs a change"],
    ]);
    expect(DomUtils.getElementsByTagName("li", document.children)).toHaveLength(3);
  });

  test("is not drawn when there is nothing wrong", () => {
    expect(renderToString(<ErrorSummary answer={null} errors={[]} />)).toBe("");
  });
});
