import type { ActionFunctionArgs } from "@remix-run/node";
import { LIMITS } from "~/modules/billing/limits";
import { receiveRelayWebhook } from "~/modules/deliverability/relay-webhooks.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * The relay's bounce and complaint webhook, POST only (docs/deploy.md,
 * "Bounces and complaints"). Exempt from our CSRF token: the relay signs
 * what it posts, and that is checked before anything is read.
 */
export async function loader() {
  throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/** A batch of events can pass 64 KB (docs/decisions/0101-body-limits-by-route.md). */
export const bodyLimit: RouteBodyLimit = { any: LIMITS.webhookMaxBodyBytes };

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  if (request.method !== "POST") {
    throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
  }
  return receiveRelayWebhook("sendgrid", request);
}
