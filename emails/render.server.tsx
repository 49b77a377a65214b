import { convert } from "html-to-text";
import juice from "juice";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";

/**
 * An e-mail template (a React element whose root is <html>) as the two bodies
 * every message carries: HTML with the layout's CSS inlined into style
 * attributes (many mail apps drop <style> blocks), and plain text for the
 * rest. Media queries (dark mode, narrow screens) stay in the head.
 */
export function renderEmail(element: ReactElement): { html: string; text: string } {
  const markup = `<!DOCTYPE html>${renderToStaticMarkup(element)}`;
  const html = juice(markup, {
    preserveMediaQueries: true,
    preserveImportant: false,
    applyWidthAttributes: false,
    applyAttributesTableElements: true,
  });
  const text = convert(html, {
    wordwrap: 78,
    selectors: [
      { selector: "img", format: "skip" },
      // "Confirm [https://…]"; a link whose text is its address appears once.
      { selector: "a", options: { linkBrackets: ["[", "]"], hideLinkHrefIfSameAsText: true } },
      // Layout tables are boxes, not data.
      { selector: "table", format: "block" },
      { selector: "tr", format: "block" },
      { selector: "td", format: "block" },
      { selector: "h1", options: { uppercase: false } },
      { selector: "h2", options: { uppercase: false } },
    ],
  });
  return { html, text };
}
