import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { html } from "~/utils/html";
import { DelegatedLink, delegatedLinkHtml } from "./delegated-navigation";

describe("delegatedLinkHtml", () => {
  test.each([
    { to: "/folders/3" },
    { to: "/folders/3/edit", className: "item-action", preventScrollReset: true },
    { to: "/folders/3", "aria-current": "page" as const, className: "min-w-0 flex-1" },
    { to: "/folders/3/items/9/edit", "aria-label": 'Edit "Fish & <chips>"' },
  ])("writes the same link as <DelegatedLink> %#", (props) => {
    expect(delegatedLinkHtml(props, html`Edit <b>${"&"}</b>`).value).toBe(
      renderToStaticMarkup(
        <DelegatedLink {...props}>
          Edit <b>&amp;</b>
        </DelegatedLink>,
      ),
    );
  });
});
