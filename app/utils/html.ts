import escapeHtml from "escape-html";

/**
 * Markup written as a string, escaped the way React escapes: for the few
 * parts of a page repeated so often that React's per-element cost shows (the
 * dashboard's item cards, docs/decisions/0079-item-cards-as-html.md). Every
 * value put into an `html` template is escaped (`&`, `<`, `>`, `"`, `'`, by
 * escape-html, the escaper Express uses) unless it is itself the result of
 * `html`, so markup can only come from the template literals in our source.
 * Our own because no trusted library pairs escaping with nesting this small:
 * escape-goat's tag escapes nested fragments twice; hono's comes with a framework.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

type HtmlValue = string | number | SafeHtml | null | undefined | false | HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index++) {
    out += render(values[index]!) + strings[index + 1]!;
  }
  return new SafeHtml(out);
}
