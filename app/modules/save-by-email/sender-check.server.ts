import dns from "node:dns";
import type { Readable } from "node:stream";
import type { AuthenticateResult } from "mailauth";
import { env } from "~/platform/env.server";

/**
 * Is a message really from the address in its From? (docs/decisions/0158-save-by-email.md)
 * Checked with mailauth: DMARC passes, or, where the domain publishes no
 * DMARC policy, SPF or DKIM passes for the From's own domain. Over a provider's
 * webhook there is no connecting address to check SPF against, so DKIM has to
 * carry it: every large mail service signs.
 */
export type Transport = {
  /** The connecting client's address, as the SMTP receiver saw it. */
  ip: string;
  helo: string;
  /** MAIL FROM (empty for bounces). */
  mailFrom: string;
};

export type SenderVerdict = { authentic: true } | { authentic: false; reason: string };

function dnsResolver() {
  const resolver = new dns.promises.Resolver({ timeout: 5000, tries: 2 });
  if (env.DNS_SERVERS.length > 0) resolver.setServers(env.DNS_SERVERS);
  return (name: string, type: string) => resolver.resolve(name, type) as Promise<never>;
}

/**
 * The verdict on mailauth's results. `spfCounts` is false over a webhook: with
 * no connecting address, an SPF "pass" would mean nothing.
 */
export function judge(
  result: Pick<AuthenticateResult, "dkim" | "spf" | "dmarc">,
  fromDomain: string,
  { spfCounts }: { spfCounts: boolean },
): SenderVerdict {
  const dmarc = result.dmarc;
  if (dmarc && dmarc.status.result === "pass" && (spfCounts || dmarc.alignment.dkim.result)) {
    return { authentic: true };
  }
  if (dmarc && dmarc.status.result !== "none") {
    return { authentic: false, reason: `DMARC ${dmarc.status.result}` };
  }
  // No DMARC record: the From's own domain must have signed it or sent it.
  const signed = result.dkim.results.some(
    (signature) =>
      signature.status.result === "pass" && signature.signingDomain?.toLowerCase() === fromDomain,
  );
  const spf = result.spf;
  const sent =
    spfCounts &&
    Boolean(spf && spf.status.result === "pass" && spf.domain.toLowerCase() === fromDomain);
  return signed || sent
    ? { authentic: true }
    : {
        authentic: false,
        reason: "no DMARC policy, and neither SPF nor DKIM passes for the From domain",
      };
}

/** `message` is the whole message's bytes, read once as mailauth hashes them. */
export async function checkSender(
  message: Readable,
  fromAddress: string,
  transport: Transport | null,
): Promise<SenderVerdict> {
  const fromDomain = fromAddress.slice(fromAddress.lastIndexOf("@") + 1).toLowerCase();
  try {
    // Loaded on the first message, not at start (docs/performance.md, "Cold start").
    const { authenticate } = await import("mailauth");
    const result = await authenticate(message, {
      ip: transport?.ip,
      helo: transport?.helo,
      sender: transport?.mailFrom,
      // A Received header is written by whoever sent the message: never believed.
      trustReceived: false,
      disableArc: true,
      disableBimi: true,
      mta: env.INBOUND_EMAIL_DOMAIN,
      resolver: dnsResolver(),
    });
    return judge(result, fromDomain, { spfCounts: transport !== null });
  } catch (error) {
    return { authentic: false, reason: `could not be checked (${(error as Error).message})` };
  }
}
