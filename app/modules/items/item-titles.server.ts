import { clipTitle } from "./item-titles";
import { isValidUrl, normalizeUrl } from "./item-validation";
import { fetchPageTitle } from "./link-previews.server";

/**
 * The title of an item saved without one, from what the app already knows
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md): a link's page title,
 * fetched while saving, else its site's name; a photo's or file's name. The
 * person can change it afterwards like any title.
 */
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
  return clipTitle((await fetchPageTitle(first, options)) ?? siteName(first));
}
