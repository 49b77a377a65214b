/**
 * Only a path on our own site is a safe place to send someone after login or
 * after a form. Every `redirectTo` and `returnTo` goes through
 * `safeRedirectPath`. The check is made on what the browser will follow: the
 * candidate is resolved against a dummy origin the way a browser resolves a
 * Location (dot segments, encoded dots, backslashes, tabs and newlines), and
 * the result must itself be a plain path that stays on that origin when
 * resolved again: `/.//evil` resolves to `//evil`, which a browser reads as
 * another host.
 */
const PROBE_ORIGIN = "http://thoughtfully.invalid";

/** Longer than any path of ours; refused before anything parses it. */
const MAX_REDIRECT_LENGTH = 2048;

/** Browsers drop tabs and newlines from URLs and read "\\" as "/". */
function hasControlOrBackslash(value: string) {
  return [...value].some((char) => char.charCodeAt(0) < 0x20 || char === "\\");
}

function resolve(path: string) {
  try {
    const url = new URL(path, PROBE_ORIGIN);
    return url.origin === PROBE_ORIGIN ? url : null;
  } catch {
    return null;
  }
}

/** Starts with one slash, decoded or not, and means the same when resolved again. */
function isPlainPath(path: string) {
  if (!path.startsWith("/") || path.startsWith("//") || hasControlOrBackslash(path)) return false;
  const url = resolve(path);
  if (!url || `${url.pathname}${url.search}${url.hash}` !== path) return false;
  try {
    const pathname = decodeURIComponent(url.pathname);
    return !pathname.startsWith("//") && !hasControlOrBackslash(pathname);
  } catch {
    return false;
  }
}

export function safeRedirectPath(candidate: unknown, fallback = "/"): string {
  if (typeof candidate !== "string" || candidate.length > MAX_REDIRECT_LENGTH) return fallback;
  if (!candidate.startsWith("/") || hasControlOrBackslash(candidate)) return fallback;
  const url = resolve(candidate);
  if (!url) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return isPlainPath(path) ? path : fallback;
}
