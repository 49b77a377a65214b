import { createRequire } from "node:module";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";

// juice (a CSS engine with its own parser) and html-to-text are a quarter of
// what the server would load at start, and only mail needs them: loaded on
// the first e-mail instead (docs/performance.md, "bench:cold-start").
const require = createRequire(import.meta.url);
let juice: typeof import("juice").default | undefined;
let toText: ((html: string) => string) | undefined;

/**
 * An e-mail template (a React element whose root is <html>) as the two bodies
 * every message carries: HTML with the layout's CSS inlined into style
 * attributes (many mail apps drop <style> blocks), and plain text for the
 * rest. Media queries (dark mode, narrow screens) stay in the head.
 */
export function renderEmailHtml(element: ReactElement): string {
  juice ??= (require("juice") as typeof import("juice")).default;
  return juice(`<!DOCTYPE html>${renderToStaticMarkup(element)}`, {
    preserveMediaQueries: true,
    preserveImportant: false,
    applyWidthAttributes: false,
    applyAttributesTableElements: true,
  });
}

/** Compiled once: html-to-text spends as long compiling its options as converting. */
function plainText(html: string): string {
  toText ??= (require("html-to-text") as typeof import("html-to-text")).compile(TEXT_OPTIONS);
  return toText(html);
}

const TEXT_OPTIONS: import("html-to-text").HtmlToTextOptions = {
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
};

/** Plain text from a template; no CSS inlining, which text does not need. */
export function renderEmailText(element: ReactElement): string {
  return plainText(renderToStaticMarkup(element));
}

export function renderEmail(element: ReactElement): { html: string; text: string } {
  const html = renderEmailHtml(element);
  return { html, text: plainText(html) };
}
