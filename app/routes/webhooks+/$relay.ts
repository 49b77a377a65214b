import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { relayWebhookReceiver } from "~/modules/deliverability/relay-webhook-receivers.server";
import { LIMITS } from "~/modules/plans/limits";
import type { CrossSitePosts } from "~/platform/cross-site";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * Every relay's bounce and complaint webhook, POST only: `/webhooks/ses`, `/postmark`,
 * `/mailgun`, `/sendgrid` (docs/deploy.md, "Bounces and complaints"); each relay's reading is an
 * adapter in `relay-webhook-receivers.server.ts`. Exempt from our CSRF token: each relay signs
 * what it posts, and that is checked before anything is read.
 */
function receiverOf(relay: string | undefined) {
  const receive = relayWebhookReceiver(relay);
  if (!receive) throw new Response("Not Found", { status: 404 });
  return receive;
}

export async function loader({ params }: LoaderFunctionArgs) {
  receiverOf(params.relay);
  throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/** A batch of events, or SNS's notification with the original headers, can pass 64 KB (docs/decisions/0101-body-limits-by-route.md). */
export const bodyLimit: RouteBodyLimit = { any: LIMITS.webhookMaxBodyBytes };

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "a mail relay's servers post here; each relay's signature is the proof";

export async function action({ request, params }: ActionFunctionArgs) {
  const receive = receiverOf(params.relay);
  await replayWritesToPrimary(request);
  if (request.method !== "POST") {
    throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
  }
  return receive(request);
}
