/**
 * The relay SMTP_URL hands mail to, as far as its metadata headers go: each relay echoes its own
 * header back in its webhooks, and reads no other's
 * (docs/decisions/0184-one-relays-headers.md). "none": a relay, or a mail server, with no
 * metadata header of its own (Amazon SES, the tests' sink); the copy's own header is enough.
 */
export const SMTP_RELAYS = ["postmark", "mailgun", "sendgrid", "none"] as const;

export type SmtpRelay = (typeof SMTP_RELAYS)[number];

/** Each relay's SMTP hosts end with its domain (smtp.postmarkapp.com, smtp.eu.mailgun.org). */
const RELAY_DOMAINS: [domain: string, relay: SmtpRelay][] = [
  ["postmarkapp.com", "postmark"],
  ["mailgun.org", "mailgun"],
  ["sendgrid.net", "sendgrid"],
];

/** The relay an SMTP URL's host belongs to; "none" for any other host, or no URL. */
export function relayOfSmtpUrl(smtpUrl: string | undefined): SmtpRelay {
  if (!smtpUrl) return "none";
  let host: string;
  try {
    host = new URL(smtpUrl).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return "none";
  }
  const found = RELAY_DOMAINS.find(([domain]) => host === domain || host.endsWith(`.${domain}`));
  return found ? found[1] : "none";
}
