import { RELAYS, type RelayName, receiveRelayWebhook } from "./relay-webhooks.server";
import { receiveSesWebhook } from "./ses-webhook.server";

/**
 * Each relay's bounce and complaint webhook by the name in its address, `/webhooks/<name>`
 * (docs/deploy.md, "Bounces and complaints"): SES through SNS, and the relays that post JSON
 * with a signature (`RELAYS`). Null for any other name.
 */
export function relayWebhookReceiver(
  name: string | undefined,
): ((request: Request) => Promise<Response>) | null {
  if (name === "ses") return receiveSesWebhook;
  if (name !== undefined && Object.hasOwn(RELAYS, name)) {
    return (request) => receiveRelayWebhook(name as RelayName, request);
  }
  return null;
}
