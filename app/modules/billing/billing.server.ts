import { and, eq, isNull } from "drizzle-orm";
import Stripe from "stripe";
import { users } from "#db/schema";
import { priceLabel } from "~/modules/plans/price-label";
import { isPremium } from "~/modules/plans/quota.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { RuleError } from "~/platform/errors.server";

/**
 * Premium billing through Stripe (docs/product-rules.md, "Billing"): Checkout to
 * subscribe, the customer portal to manage or cancel. Nothing here grants
 * premium: only a signed webhook does (app/modules/billing/subscriptions.server.ts).
 * Without STRIPE_SECRET_KEY, STRIPE_PRICE_ID and STRIPE_WEBHOOK_SECRET the app
 * runs and every billing action answers `BillingNotConfigured`.
 */

/** A refusal told to the person (the upgrade page answers it with a 503). */
export class BillingNotConfigured extends RuleError {
  constructor() {
    super("Billing is not configured on this server yet, so Premium cannot be bought here.");
  }
}

export class BillingError extends RuleError {}

type StripeSettings = {
  secretKey?: string;
  priceId?: string;
  webhookSecret?: string;
  apiBase?: string;
};

const settings: StripeSettings = {
  secretKey: env.STRIPE_SECRET_KEY,
  priceId: env.STRIPE_PRICE_ID,
  webhookSecret: env.STRIPE_WEBHOOK_SECRET,
  apiBase: env.STRIPE_API_BASE,
};

export function billingConfigured() {
  return Boolean(settings.secretKey && settings.priceId && settings.webhookSecret);
}

/**
 * The Stripe API version the app reads and writes: the one stripe 23.1 ships with, pinned so
 * that a new SDK cannot change the shapes under the code (its types name only its own version,
 * so the next one fails the type check here). Stripe writes webhook events in the version of
 * the webhook endpoint, which must be this one (docs/deploy.md, "Billing";
 * docs/decisions/0185-stripe-api-version-pinned.md).
 */
export const STRIPE_API_VERSION = "2026-10-28.endive" satisfies Stripe.LatestApiVersion;

/** A `stripe` client; STRIPE_API_BASE (tests) points it at a fake API by host, port and protocol. */
export function createStripeClient(secretKey: string, apiBase?: string) {
  const base = apiBase ? new URL(apiBase) : null;
  return new Stripe(secretKey, {
    apiVersion: STRIPE_API_VERSION,
    telemetry: false,
    maxNetworkRetries: 1,
    timeout: 10_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === "https:" ? 443 : 80),
          protocol: base.protocol === "https:" ? "https" : "http",
        }
      : {}),
  });
}

let client: Stripe | null = null;

/** The configured client, or `BillingNotConfigured`. */
export function stripe(): Stripe {
  if (!billingConfigured() || !settings.secretKey) throw new BillingNotConfigured();
  client ??= createStripeClient(settings.secretKey, settings.apiBase);
  return client;
}

export function webhookSecret(): string {
  if (!billingConfigured() || !settings.webhookSecret) throw new BillingNotConfigured();
  return settings.webhookSecret;
}

/**
 * Origins the browser is sent to after a POST (Checkout, the portal); the CSP
 * `form-action` must allow them because browsers apply it to the redirect.
 */
export function billingFormActionOrigins(): string[] {
  if (!billingConfigured()) return [];
  const origins = ["https://checkout.stripe.com", "https://billing.stripe.com"];
  if (settings.apiBase) origins.push(new URL(settings.apiBase).origin);
  return origins;
}

/**
 * Whether a completed Checkout session pays for Premium: paid (not merely
 * completed) and for STRIPE_PRICE_ID. The webhook event does not carry the
 * line items, so they are read from Stripe; an error here fails the webhook,
 * and Stripe delivers it again later.
 */
export async function checkoutPaysForPremium(session: Stripe.Checkout.Session) {
  if (session.payment_status !== "paid") return false;
  const lineItems = await stripe().checkout.sessions.listLineItems(session.id, { limit: 10 });
  return lineItems.data.some((item) => item.price?.id === settings.priceId);
}

export type SubscriptionCancellation = "none" | "cancelled" | "already-ended";

/**
 * Ends the user's subscription with Stripe at once, before their account is
 * deleted: otherwise Stripe would go on charging a card for an account that
 * no longer exists. Throws `BillingError` when it cannot be done, so the
 * account is kept and the user can try again.
 */
export async function cancelSubscriptionNow(user: {
  stripeSubscriptionId: string | null;
}): Promise<SubscriptionCancellation> {
  if (!user.stripeSubscriptionId) return "none";
  try {
    await stripe().subscriptions.cancel(user.stripeSubscriptionId);
    return "cancelled";
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) {
      return "already-ended";
    }
    throw new BillingError(
      "We could not cancel your Premium subscription with Stripe, so your account was not deleted. Please try again in a few minutes, or contact support.",
    );
  }
}

type BillingUser = {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  stripeCustomerId: string | null;
  subscriptionTier: string;
  subscriptionStatus: string;
};

/** The user's Stripe customer: the stored one, else a new one remembered on the user. */
async function customerFor(user: BillingUser): Promise<string> {
  if (user.stripeCustomerId) return user.stripeCustomerId;
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ") || undefined;
  const customer = await stripe().customers.create({
    email: user.email,
    name,
    metadata: { userId: String(user.id) },
  });
  // Two clicks at once: the first stored customer wins and both use it.
  db.update(users)
    .set({ stripeCustomerId: customer.id })
    .where(and(eq(users.id, user.id), isNull(users.stripeCustomerId)))
    .run();
  const stored = db
    .select({ stripeCustomerId: users.stripeCustomerId })
    .from(users)
    .where(eq(users.id, user.id))
    .get();
  return stored?.stripeCustomerId ?? customer.id;
}

/** A Checkout session for STRIPE_PRICE_ID; returns the URL to send the browser to. */
export async function createCheckoutSession(user: BillingUser, appUrl = env.APP_URL) {
  const client = stripe();
  if (isPremium(user)) throw new BillingError("You already have Premium.");
  const customer = await customerFor(user);
  const session = await client.checkout.sessions.create({
    mode: "subscription",
    customer,
    client_reference_id: String(user.id),
    line_items: [{ price: settings.priceId, quantity: 1 }],
    success_url: `${appUrl}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${appUrl}/billing/cancel`,
    metadata: { userId: String(user.id) },
    subscription_data: { metadata: { userId: String(user.id) } },
  });
  if (!session.url) throw new BillingError("Stripe did not return a checkout page.");
  return session.url;
}

/** A customer-portal session (manage card, cancel); returns its URL. */
export async function createPortalSession(user: BillingUser, appUrl = env.APP_URL) {
  const client = stripe();
  if (!user.stripeCustomerId) throw new BillingError("There is no billing account to manage yet.");
  const session = await client.billingPortal.sessions.create({
    customer: user.stripeCustomerId,
    return_url: `${appUrl}/profile`,
  });
  return session.url;
}

/** How long the price read from Stripe is reused: it changes rarely, and the page must not wait on Stripe each time. */
const PRICE_TTL_MS = 10 * 60 * 1000;
let cachedPrice: { label: string; readAt: number } | null = null;

/**
 * STRIPE_PRICE_ID in words ("$5.00 a month"), read from Stripe so the upgrade
 * page shows what Checkout will charge; null when billing is off or Stripe
 * cannot be reached (the page then says the price is on Stripe's page).
 */
export async function premiumPriceLabel(now = Date.now()): Promise<string | null> {
  if (!billingConfigured() || !settings.priceId) return null;
  if (cachedPrice && now - cachedPrice.readAt < PRICE_TTL_MS) return cachedPrice.label;
  try {
    const price = await stripe().prices.retrieve(settings.priceId);
    if (price.unit_amount === null) return null;
    const label = priceLabel({
      unitAmount: price.unit_amount,
      currency: price.currency,
      interval: price.recurring?.interval,
      intervalCount: price.recurring?.interval_count,
    });
    if (label === null) return null;
    cachedPrice = { label, readAt: now };
    return label;
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    console.error("Reading the Premium price from Stripe failed:", error.message);
    return null;
  }
}
