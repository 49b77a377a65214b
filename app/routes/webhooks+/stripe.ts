import type { ActionFunctionArgs } from "@remix-run/node";
import type Stripe from "stripe";
import {
  BillingNotConfigured,
  checkoutPaysForPremium,
  STRIPE_API_VERSION,
  stripe,
  webhookSecret,
} from "~/modules/billing/billing.server";
import { applyStripeEvent } from "~/modules/billing/subscriptions.server";
import { LIMITS } from "~/modules/plans/limits";
import type { CrossSitePosts } from "~/platform/cross-site";
import { replayWritesToPrimary } from "~/platform/replication.server";
import { readBodyText } from "~/platform/request-body.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * Stripe's webhook, POST only. Exempt from our CSRF token: Stripe signs its
 * webhook, and the signature (checked by the `stripe` library over the raw
 * body, at most five minutes old) is the proof. Anything unsigned, tampered or
 * stale answers 400 and changes nothing. Plain Responses: Stripe reads the
 * status, and a resource route's `data()` would lose it.
 */
export async function loader() {
  throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

const versionsWarnedAbout = new Set<string>();

/**
 * Stripe writes an event in its webhook endpoint's API version, not the app's. One in another
 * version is applied as read (the fields read here are the same since 2025-03-31.basil), and
 * the log says once per version what to change (docs/decisions/0185-stripe-api-version-pinned.md).
 */
function warnOfAnotherApiVersion(event: Stripe.Event) {
  const version = event.api_version;
  if (!version || version === STRIPE_API_VERSION || versionsWarnedAbout.has(version)) return;
  versionsWarnedAbout.add(version);
  console.warn(
    `[billing] Stripe's webhook sent API version ${version}; the app reads ${STRIPE_API_VERSION}. Set the webhook endpoint's API version to ${STRIPE_API_VERSION} (docs/deploy.md, "Billing").`,
  );
}

/** Stripe's raw body, read by readBodyText with the same limit (docs/decisions/0101-body-limits-by-route.md). */
export const bodyLimit: RouteBodyLimit = { any: LIMITS.webhookMaxBodyBytes };

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "Stripe's servers post here; its signature is the proof";

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  if (request.method !== "POST") {
    throw new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
  }
  let secret: string;
  try {
    secret = webhookSecret();
  } catch (error) {
    if (error instanceof BillingNotConfigured) {
      return Response.json({ error: "billing is not configured" }, { status: 503 });
    }
    throw error;
  }
  // Who first: a post without Stripe's signature is refused before its body is read.
  const signature = request.headers.get("stripe-signature");
  if (!signature) return Response.json({ error: "invalid signature" }, { status: 400 });
  const payload = await readBodyText(request, LIMITS.webhookMaxBodyBytes);
  if (payload === null) return Response.json({ error: "body too large" }, { status: 413 });
  let event: Stripe.Event;
  try {
    event = stripe().webhooks.constructEvent(payload, signature, secret);
  } catch {
    return Response.json({ error: "invalid signature" }, { status: 400 });
  }
  warnOfAnotherApiVersion(event);
  const outcome = applyStripeEvent(event, {
    checkoutPaysForPremium:
      event.type === "checkout.session.completed" &&
      (await checkoutPaysForPremium(event.data.object)),
  });
  return Response.json({ received: true, outcome });
}
