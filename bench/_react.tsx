import { PassThrough } from "node:stream";
import { createElement as h } from "react";
import { renderToPipeableStream, renderToString } from "react-dom/server";

function Item({ i }: { i: number }) {
  return h("li", { className: "item-card" },
    h("div", { className: "min-w-0 flex-1 space-y-2" },
      h("p", { className: "item-type" }, "link"),
      h("h3", { className: "item-title" }, `An article worth reading, number ${i}`),
      h("ul", { className: "space-y-0.5 text-sm" },
        h("li", { className: "truncate" }, h("a", { href: `https://example.com/a/${i}`, target: "_blank", rel: "noopener", className: "item-url" }, `https://example.com/a/${i}`)),
        h("li", { className: "truncate" }, h("a", { href: `https://example.org/r/${i}`, target: "_blank", rel: "noopener", className: "item-url" }, `https://example.org/r/${i}`))),
      h("p", { className: "text-sm text-stone-700" }, h("span", { className: "font-medium" }, "Comment:"), " ", "Made me think of you.")),
    h("div", { className: "flex shrink-0 flex-col items-end gap-1" },
      h("a", { href: `/folders/1/items/${i}/edit`, className: "item-action", "aria-label": `Edit ${i}` }, "Edit"),
      h("button", { name: "intent", value: `move-up:${i}`, "aria-label": `Move ${i} up`, className: "item-action" }, "Up"),
      h("button", { name: "intent", value: `move-down:${i}`, "aria-label": `Move ${i} down`, className: "item-action" }, "Down"),
      h("button", { name: "intent", value: `delete:${i}`, "aria-label": `Delete ${i}`, className: "item-action" }, "Delete")));
}
const tree = h("ol", null, Array.from({ length: 50 }, (_, i) => h(Item, { key: i, i })));
const N = 300;
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  let len = 0;
  for (let i = 0; i < N; i++) len = renderToString(tree).length;
  console.log("renderToString", ((performance.now() - t) / N).toFixed(3), "ms", len);
  t = performance.now();
  for (let i = 0; i < N; i++) {
    await new Promise<void>((resolve) => {
      const out = new PassThrough();
      out.on("data", () => {});
      out.on("end", resolve);
      const s = renderToPipeableStream(tree, { onAllReady() { s.pipe(out); } });
    });
  }
  console.log("pipeable", ((performance.now() - t) / N).toFixed(3), "ms");
}
