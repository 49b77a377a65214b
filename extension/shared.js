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

/**
 * The connection to the app's API: a token the user created for the
 * extension on the app's Connect page, kept in local (never synced) storage
 * with the address it belongs to.
 */
export async function readConnection(appUrl) {
  const { connection } = await chrome.storage.local.get("connection");
  return connection?.appUrl === appUrl && connection.token ? connection : null;
}

export async function forgetConnection() {
  await chrome.storage.local.remove("connection");
}

/** A random `state` the Connect page hands back, so only the answer to our own request is taken. */
export async function startConnecting(appUrl) {
  const state = Array.from(crypto.getRandomValues(new Uint8Array(24)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
  await chrome.storage.local.set({ pendingConnection: { appUrl, state } });
  const target = new URL(`${appUrl}/extension/connect`);
  target.searchParams.set("return", chrome.runtime.getURL("connected.html"));
  target.searchParams.set("state", state);
  return target.href;
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A call to the app's JSON API with the extension's token. */
export async function callApi(connection, path, init = {}) {
  const response = await fetch(`${connection.appUrl}/api/v1${path}`, {
    ...init,
    headers: {
      Authorization: `Bearer ${connection.token}`,
      ...(init.body ? { "Content-Type": "application/json" } : {}),
    },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(
      response.status,
      body?.error?.message ?? `Request failed (${response.status})`,
    );
  }
  return body;
}
