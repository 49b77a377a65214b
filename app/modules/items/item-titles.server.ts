import type { StoredUpload } from "~/modules/files/upload-kinds";
import { consumeRateLimit, type RateLimit } from "~/platform/rate-limit.server";
import { clipTitle, titleForUpload } from "./item-titles";
import { type ItemType, isValidUrl, normalizeUrl } from "./item-validation";
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

/**
 * Each fetch is a request we make for the saver while they wait: a throwaway
 * account saving link after link gets site names, not unbounded fetches.
 */
export const PAGE_TITLES_PER_USER: RateLimit = {
  name: "page-title-user",
  points: 60,
  durationSeconds: 60 * 60,
};

/**
 * The title typed or shared, else the first page's own title (while the
 * saver's fetches last), else its site's name.
 */
export async function titleForLink(
  userId: number,
  title: string,
  urls: string[],
  options: Parameters<typeof fetchPageTitle>[1] = {},
) {
  if (title) return title;
  const [first] = urls;
  if (!first) return "";
  const verdict = await consumeRateLimit(PAGE_TITLES_PER_USER, String(userId));
  const fetched = verdict.allowed ? await fetchPageTitle(first, options) : null;
  return clipTitle(fetched ?? siteName(first));
}

/**
 * A link from the app's own sheets saved with its title left empty (JavaScript off, or sent
 * before the page's title came back) gets one as quick saves do
 * (docs/decisions/0199-the-app-fills-what-it-knows.md). Other items are returned as they are.
 */
export async function withLinkTitle<T extends { type?: string; title?: string; urls?: string[] }>(
  userId: number,
  value: T,
): Promise<T> {
  if (value.type !== "link" || value.title) return value;
  return { ...value, title: await titleForLink(userId, "", value.urls ?? []) };
}

/**
 * Photos or a clip from an Add sheet sent with the title empty (JavaScript off; with it the
 * browser fills it as they are chosen) get the title the share page would give them, before the
 * form is checked: the form is returned with its title set, so a refusal for another reason
 * shows it too (docs/decisions/0248-the-server-fills-a-photos-title-and-keeps-refused-files.md).
 * A file's (PDF, Word) title is still typed; every other form is returned as it is.
 */
export function withUploadTitle(
  formData: FormData,
  type: ItemType,
  files: Pick<StoredUpload, "name" | "takenOn">[],
  at: { date: Date; timeZone: string },
): FormData {
  const typed = formData.get("title");
  if (type !== "photo" && type !== "video") return formData;
  if (files.length === 0 || (typeof typed === "string" && typed.trim())) return formData;
  const filled = new FormData();
  for (const [name, value] of formData) filled.append(name, value);
  filled.set("title", titleForUpload(type, files, at));
  return filled;
}
