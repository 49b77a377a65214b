import { comparableEmail } from "~/modules/recipients/email-address";
import {
  consumeRateLimits,
  type RateLimit,
  type RateLimitVerdict,
  retryAfterMessage,
} from "~/platform/rate-limit.server";
import { clientIp } from "~/platform/request-info.server";

/**
 * How often each endpoint that sends mail may do so, per address (the inbox
 * that would receive it, or the sender's account) and per client. Taken
 * before anything is looked up or sent, and whether or not an account exists,
 * so a refusal tells nothing about who has one. The numbers are in
 * docs/decisions/0042-mail-limits.md.
 */
const HOUR = 60 * 60;

export type MailEndpoint =
  | "sign-up"
  | "password-reset"
  | "verification"
  | "test-email"
  | "send-now";

const PER_ADDRESS_PER_HOUR = 3;
const PER_CLIENT_PER_HOUR = 10;

function limitsFor(endpoint: MailEndpoint): { address: RateLimit; client: RateLimit } {
  return {
    address: {
      name: `mail:${endpoint}:address`,
      points: PER_ADDRESS_PER_HOUR,
      durationSeconds: HOUR,
    },
    client: { name: `mail:${endpoint}:client`, points: PER_CLIENT_PER_HOUR, durationSeconds: HOUR },
  };
}

/**
 * Takes one point for `address` (an e-mail address or "user:<id>") and one
 * for the client. Returns null when the mail may go, else the message for
 * the person: "Please try again in N minutes."
 */
export async function refuseMailBurst(
  endpoint: MailEndpoint,
  request: Request,
  address: string,
): Promise<string | null> {
  const limits = limitsFor(endpoint);
  // Send Now and Send me a test come from a signed-in, verified account: its
  // own limit bounds them, and a per-client one would only stop people who
  // share an address (an office, a family) from sending their own folders.
  const signedIn = endpoint === "send-now" || endpoint === "test-email";
  const verdict: RateLimitVerdict = await consumeRateLimits([
    { limit: limits.address, key: comparableEmail(address) },
    { limit: limits.client, key: signedIn ? null : clientIp(request) },
  ]);
  return verdict.allowed ? null : retryAfterMessage(verdict.retryAfterSeconds);
}
