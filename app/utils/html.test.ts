import { describe, expect, test } from "vitest";
import { html, SafeHtml } from "./html";

describe("html", () => {
  test("escapes every value the way React escapes text and attributes", () => {
    const value = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<p title="${value}">${value}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">' +
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p>",
    );
  });

  test("keeps nested templates as markup, escaping only their own values", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p>${inner}</p>`.value).toBe("<p><b>&lt;i&gt;</b></p>");
  });

  test("joins arrays and leaves out null, undefined and false", () => {
    const items = ["a<", "b"].map((letter) => html`<li>${letter}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}`.value).toBe(
      "<ul><li>a&lt;</li><li>b</li></ul>",
    );
  });

  test("prints numbers, zero included", () => {
    expect(html`<span>${0}</span><span>${12.5}</span>`.value).toBe(
      "<span>0</span><span>12.5</span>",
    );
  });

  test("a string that looks like markup is never taken for markup", () => {
    const pretending = { value: "<b>" } as unknown as SafeHtml;
    expect(html`${pretending}`.value).toBe("[object Object]");
    expect(html`${String(new SafeHtml("<b>"))}`.value).toBe("&lt;b&gt;");
  });
});
