/** Shared by the popup and the options page. */
export const DEFAULT_APP_URL = "http://localhost:3000";
export const NOTE_MAX_LENGTH = 1000;

/** An http(s) address with nothing after the host but an optional path, without a trailing slash. */
export function normalizeAppUrl(value) {
  let url;
  try {
    url = new URL(String(value).trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export async function readAppUrl() {
  const stored = await chrome.storage.sync.get({ appUrl: DEFAULT_APP_URL });
  return normalizeAppUrl(stored.appUrl) ?? DEFAULT_APP_URL;
}

/** The app's /add page with the captured page, as the bookmarklet and the share target open it. */
export function addPageUrl(appUrl, { url, title, note }) {
  const target = new URL(`${appUrl}/add`);
  target.searchParams.set("extension", "true");
  target.searchParams.set("url", url);
  target.searchParams.set("title", title);
  if (note) target.searchParams.set("note", note);
  return target.href;
}
