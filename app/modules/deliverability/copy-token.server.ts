import crypto from "node:crypto";
import addressparser from "nodemailer/lib/addressparser/index.js";
import { env } from "~/platform/env.server";
import type { SmtpRelay } from "~/platform/smtp-relay";

/**
 * The mark each newsletter copy carries so that a report about it, arriving
 * later from a relay or as a bounce message, finds its `send_ledger_recipients`
 * row without believing the address the report names
 * (docs/decisions/0120-reports-matched-by-a-signed-copy-token.md).
 *
 * `c<id>-<mac>`: the row's id and 96 bits of an HMAC-SHA256 of it under
 * SESSION_SECRET. Lower-case letters, digits and dashes only, so it survives
 * in an address's local part (which relays and mail servers may lower-case)
 * and in every relay's metadata field.
 */
const PURPOSE = "delivery-report-copy";
const MAC_HEX_LENGTH = 24;
const TOKEN = /\bc([1-9][0-9]{0,15})-([0-9a-f]{24})\b/gi;

/** The header relays echo back in their webhooks (or keep in the returned original message). */
export const COPY_HEADER = "X-Thoughtfully-Copy";

function macOf(ledgerRecipientId: number) {
  return crypto
    .createHmac("sha256", env.SESSION_SECRET)
    .update(`${PURPOSE}:${ledgerRecipientId}`)
    .digest("hex")
    .slice(0, MAC_HEX_LENGTH);
}

export function copyToken(ledgerRecipientId: number) {
  return `c${ledgerRecipientId}-${macOf(ledgerRecipientId)}`;
}

/** The ledger recipient id of a genuine token, or null. */
export function readCopyToken(token: string): number | null {
  const match = new RegExp(`^${TOKEN.source}$`, "i").exec(token.trim());
  return match ? verified(match[1]!, match[2]!) : null;
}

function verified(idText: string, mac: string) {
  const id = Number(idText);
  if (!Number.isSafeInteger(id)) return null;
  const expected = Buffer.from(macOf(id));
  const given = Buffer.from(mac.toLowerCase());
  return expected.length === given.length && crypto.timingSafeEqual(expected, given) ? id : null;
}

/**
 * Every ledger recipient a genuine token names anywhere in the text (a
 * returned message's headers, a VERP address): forged or mangled tokens are
 * skipped. Distinct, in order of appearance.
 */
export function copyTokensIn(text: string): number[] {
  const ids = new Set<number>();
  for (const match of text.matchAll(TOKEN)) {
    const id = verified(match[1]!, match[2]!);
    if (id !== null) ids.add(id);
  }
  return [...ids];
}

/**
 * The envelope sender (Return-Path) of a copy: BOUNCE_ADDRESS with the token
 * after a `+` (`bounces+c12-…@bounce.example.com`), so a bounce sent back
 * names its copy. Null without BOUNCE_ADDRESS: the return path stays
 * MAIL_FROM's and reports match by the header alone.
 */
export function returnPathFor(ledgerRecipientId: number): string | null {
  if (!env.BOUNCE_ADDRESS) return null;
  const [parsed] = addressparser(env.BOUNCE_ADDRESS, { flatten: true });
  const address = parsed?.address;
  const at = address?.lastIndexOf("@") ?? -1;
  if (!address || at <= 0) return null;
  return `${address.slice(0, at)}+${copyToken(ledgerRecipientId)}${address.slice(at)}`;
}

/** Where the tokens sit in the relays' webhook bodies. */
export const COPY_METADATA_KEY = "thoughtfully_copy";

/** The header through which each relay hands the token back in its webhook. */
const RELAY_HEADERS: Record<SmtpRelay, (token: string) => Record<string, string>> = {
  postmark: (token) => ({ "X-PM-Metadata-thoughtfully_copy": token }),
  mailgun: (token) => ({ "X-Mailgun-Variables": JSON.stringify({ thoughtfully_copy: token }) }),
  sendgrid: (token) => ({
    "X-SMTPAPI": JSON.stringify({ unique_args: { thoughtfully_copy: token } }),
  }),
  none: () => ({}),
};

/**
 * The headers a copy carries: our own (kept in returned messages, and in Amazon SES's original
 * headers) and the metadata header of the relay SMTP_URL hands mail to, nobody else's
 * (docs/deploy.md, "Bounces and complaints"; docs/decisions/0184-one-relays-headers.md).
 */
export function copyHeaders(
  ledgerRecipientId: number,
  relay: SmtpRelay = env.SMTP_RELAY,
): Record<string, string> {
  const token = copyToken(ledgerRecipientId);
  return { [COPY_HEADER]: token, ...RELAY_HEADERS[relay](token) };
}
