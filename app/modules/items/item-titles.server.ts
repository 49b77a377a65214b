import { LIMITS } from "~/modules/billing/limits";
import { isValidUrl, normalizeUrl } from "./item-validation";
import { fetchPageTitle } from "./link-previews.server";

/**
 * The title of an item saved without one, from what the app already knows
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md): a link's page title,
 * fetched while saving, else its site's name; a photo's or file's name. The
 * person can change it afterwards like any title.
 */
function clip(title: string) {
  const characters = [...title.replace(/\s+/g, " ").trim()];
  const max = LIMITS.item.titleMaxLength;
  return characters.length > max
    ? `${characters.slice(0, max - 1).join("")}…`
    : characters.join("");
}

/** A page's site: its host without "www.", or "" for what is not an address. */
export function siteName(url: string) {
  const normalized = normalizeUrl(url);
  if (!isValidUrl(normalized)) return "";
  return new URL(normalized).hostname.replace(/^www\./, "");
}

/** The title typed or shared, else the first page's own title, else its site's name. */
export async function titleForLink(
  title: string,
  urls: string[],
  options: Parameters<typeof fetchPageTitle>[1] = {},
) {
  if (title) return title;
  const [first] = urls;
  if (!first) return "";
  return clip((await fetchPageTitle(first, options)) ?? siteName(first));
}

/** "IMG_2041.jpg" reads "IMG 2041", "summer-menu.v2.pdf" reads "summer menu.v2". */
export function titleFromFileName(name: string) {
  const base = name.replace(/\.[^.]*$/, "") || name;
  return clip(base.replace(/[_-]+/g, " "));
}
