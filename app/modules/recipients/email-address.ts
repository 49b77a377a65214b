import addressparser from "nodemailer/lib/addressparser/index.js";

/**
 * A recipient's address in its one canonical form, or null when the text is
 * not a bare address. Shared by the browser (form validation) and the server
 * (storage, opt-out checks, the send step), so every place agrees on which
 * spellings are the same person.
 *
 * Bare means: after trimming, nodemailer's own address parser (the one that
 * reads `to` when we send) finds exactly this one address and no display
 * name, so what we check is what the mailer would deliver to. Brackets,
 * commas, comments, quotes and display names are refused rather than
 * unwrapped: a sender who types them is told, not silently corrected.
 *
 * Canonical means: Unicode NFC, the whole address lower-cased (local parts
 * are compared case-insensitively everywhere, see docs/decisions/0041-one-canonical-recipient-address.md), and the
 * domain in its ASCII (IDNA/punycode) form, which also folds look-alike
 * spellings such as full-width letters into the one domain they resolve to.
 */
const FORBIDDEN = /[\s<>()[\]\\,;:"%/?#]/u;
const LOCAL_PART = /^[^.@](?:[^@]*[^.@])?$/u;
const ASCII_DOMAIN =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
const MAX_LENGTH = 254;

export function canonicalEmail(input: string): string | null {
  const trimmed = input.trim().normalize("NFC");
  if (!trimmed || trimmed.length > MAX_LENGTH || FORBIDDEN.test(trimmed)) return null;
  const parsed = addressparser(trimmed, { flatten: true });
  if (parsed.length !== 1 || parsed[0]?.name || parsed[0]?.address !== trimmed) return null;
  const at = trimmed.lastIndexOf("@");
  const local = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1);
  if (at <= 0 || local.includes("@") || !LOCAL_PART.test(local) || local.includes("..")) {
    return null;
  }
  const asciiDomain = toAsciiDomain(domain);
  if (!asciiDomain || !ASCII_DOMAIN.test(asciiDomain)) return null;
  const canonical = `${local.toLowerCase()}@${asciiDomain}`;
  return canonical.length <= MAX_LENGTH ? canonical : null;
}

/** The WHATWG URL parser applies IDNA (UTS #46) in Node and in every browser alike. */
function toAsciiDomain(domain: string) {
  try {
    return new URL(`http://${domain}/`).hostname;
  } catch {
    return null;
  }
}

/** The canonical form when there is one, else the trimmed, lower-cased text (for lookups only). */
export function comparableEmail(input: string) {
  return canonicalEmail(input) ?? input.trim().normalize("NFC").toLowerCase();
}
