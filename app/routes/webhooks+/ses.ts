import type { ActionFunctionArgs } from "@remix-run/node";
import { LIMITS } from "~/modules/billing/limits";
import { receiveSesWebhook } from "~/modules/deliverability/ses-webhook.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * Amazon SES's bounce and complaint notifications through SNS, POST only
 * (docs/deploy.md, "Bounces and complaints"). Exempt from our CSRF token: SNS
 * signs each message, and that is checked before anything is acted on.
 */
export async function loader() {
  throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/** A notification with the original headers can pass 64 KB (docs/decisions/0101-body-limits-by-route.md). */
export const bodyLimit: RouteBodyLimit = { any: LIMITS.webhookMaxBodyBytes };

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  if (request.method !== "POST") {
    throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
  }
  return receiveSesWebhook(request);
}
