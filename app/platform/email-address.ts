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

/** Domains whose mail ignores dots in the local part and that are one mailbox system. */
const GMAIL_DOMAINS = new Set(["gmail.com", "googlemail.com"]);

/**
 * The mailbox an address delivers to, for matching opt-outs: the canonical
 * address with the local part cut before its first `+` (sub-addressing, on
 * every domain), and for gmail.com and googlemail.com also without dots and
 * with googlemail.com folded into gmail.com. Null when there is no canonical
 * form. Only a key: addresses are stored and mailed as typed
 * (docs/decisions/0110-one-mailbox-one-opt-out.md). Migration 0012 computes
 * the same key in SQL; mailbox-migration.test.ts holds the two together.
 */
export function mailboxKey(input: string): string | null {
  const canonical = canonicalEmail(input);
  if (!canonical) return null;
  const at = canonical.lastIndexOf("@");
  let local = canonical.slice(0, at);
  let domain = canonical.slice(at + 1);
  // A local part that starts with "+" has no tag to cut: it is kept whole.
  const plus = local.indexOf("+");
  if (plus > 0) local = local.slice(0, plus);
  if (GMAIL_DOMAINS.has(domain)) {
    local = local.replaceAll(".", "");
    domain = "gmail.com";
  }
  return `${local}@${domain}`;
}

/**
 * A SQL LIKE pattern (escaped with a backslash) that every spelling of the
 * mailbox matches, for finding stored addresses that have no key column:
 * a superset, so callers compare `mailboxKey` on what it finds.
 */
export function mailboxLikePattern(mailbox: string) {
  const at = mailbox.lastIndexOf("@");
  const literal = (text: string) => text.replace(/[\\%_]/g, "\\$&");
  const local = mailbox.slice(0, at);
  const domain = mailbox.slice(at + 1);
  // Gmail ignores dots anywhere in the local part and answers at googlemail.com too.
  if (domain === "gmail.com") return `${[...local].map(literal).join("%")}%@g%mail.com`;
  return `${literal(local)}%@${literal(domain)}`;
}

/** The mailbox key when there is one, else the trimmed, lower-cased text (for lookups only). */
export function comparableMailbox(input: string) {
  return mailboxKey(input) ?? comparableEmail(input);
}

/** The canonical form when there is one, else the trimmed, lower-cased text (for lookups only). */
export function comparableEmail(input: string) {
  return canonicalEmail(input) ?? input.trim().normalize("NFC").toLowerCase();
}
