import { LIMITS } from "~/modules/billing/limits";

/** A title of any length cut to the limit, with an ellipsis when cut; whitespace folded. */
export function clipTitle(title: string) {
  const characters = [...title.replace(/\s+/g, " ").trim()];
  const max = LIMITS.item.titleMaxLength;
  return characters.length > max
    ? `${characters.slice(0, max - 1).join("")}…`
    : characters.join("");
}

/**
 * "IMG_2041.jpg" reads "IMG 2041", "summer-menu.v2.pdf" reads "summer menu.v2": a
 * photo's or file's title before the person writes one (docs/decisions/0134-quick-saves-wait-for-a-note.md).
 * Shared: the API's quick saves use it, and the upload dialogs fill an empty title with it.
 */
export function titleFromFileName(name: string) {
  const base = name.replace(/\.[^.]*$/, "") || name;
  return clipTitle(base.replace(/[_-]+/g, " "));
}
