/**
 * Only a path on our own site is a safe place to send someone after login.
 * The candidate is parsed against a dummy origin and accepted only when it
 * stays on that origin, which catches `//evil`, `/\evil`, tabs and encoded
 * tricks that string checks miss.
 */
const PROBE_ORIGIN = "http://thoughtfully.invalid";

/** Browsers drop tabs and newlines from URLs and read "\\" as "/". */
function hasControlOrBackslash(value: string) {
  return [...value].some((char) => char.charCodeAt(0) < 0x20 || char === "\\");
}

export function safeRedirectPath(candidate: unknown, fallback = "/"): string {
  if (typeof candidate !== "string" || !candidate.startsWith("/")) return fallback;
  if (hasControlOrBackslash(candidate)) return fallback;
  let decoded = candidate;
  try {
    decoded = decodeURIComponent(candidate);
  } catch {
    return fallback;
  }
  if (hasControlOrBackslash(decoded) || decoded.startsWith("//")) return fallback;
  let url: URL;
  try {
    url = new URL(candidate, PROBE_ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== PROBE_ORIGIN) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}
