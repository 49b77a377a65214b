import { and, eq, inArray } from "drizzle-orm";
import type Stripe from "stripe";
import { folders, processedStripeEvents, users } from "#db/schema";
import type { Transaction, User } from "#db/types";
import { nextSendAt } from "~/modules/folders/schedule.server";
import { LIMITS } from "~/modules/plans/limits";
import { isPremium } from "~/modules/plans/quota.server";
import { writeTransaction } from "~/platform/db.server";

/**
 * What Stripe's (already verified) webhook events do to a user. Each event is
 * applied at most once: its id goes into `processed_stripe_events` in the same
 * transaction as its effect, so a redelivery, or two deliveries at once, has
 * one effect, and a failed effect leaves the id free for Stripe's retry.
 *
 * Premium is tier `premium` with status `active`; Stripe's `trialing` counts
 * as active, every other status (past_due, unpaid, canceled, …) ends premium.
 * When premium ends nothing is deleted; premium-only frequencies fall back to
 * weekly (see `endPremium`).
 *
 * A completed Checkout grants premium only when the caller has checked with
 * Stripe that it was paid, for our price (`checkoutPaysForPremium` in
 * billing.server.ts). The paid-until date comes from the subscription's
 * events and from each paid invoice, whichever arrives.
 */

export type EventOutcome = "applied" | "duplicate" | "ignored";

const HANDLED = new Set([
  "checkout.session.completed",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
]);

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === "string" ? value : value.id;
}

function fromUnix(seconds: number | null | undefined) {
  return typeof seconds === "number" ? new Date(seconds * 1000) : null;
}

/** Stripe's subscription status as ours: "active" while it entitles to premium. */
export function statusFromStripe(status: string) {
  return status === "active" || status === "trialing" ? "active" : status;
}

/** The end of the paid period: on the subscription's items since API version 2025-03-31. */
function periodEnd(subscription: Stripe.Subscription) {
  const ends = subscription.items?.data
    ?.map((item) => item.current_period_end)
    .filter((end): end is number => typeof end === "number");
  if (ends && ends.length > 0) return fromUnix(Math.max(...ends));
  return fromUnix(subscription.cancel_at);
}

function findUser(
  tx: Transaction,
  { userId, customerId }: { userId?: number; customerId: string | null },
) {
  if (userId && Number.isSafeInteger(userId)) {
    const byId = tx.select().from(users).where(eq(users.id, userId)).get();
    if (byId) return byId;
  }
  if (!customerId) return undefined;
  return tx.select().from(users).where(eq(users.stripeCustomerId, customerId)).get();
}

/** Folders on a premium-only frequency go weekly, with their next send recomputed. */
export function fallBackToFreeFrequencies(tx: Transaction, userId: number, now = new Date()) {
  const owner = tx
    .select({ timeZone: users.timeZone })
    .from(users)
    .where(eq(users.id, userId))
    .get();
  if (!owner) return 0;
  const free = LIMITS.free.frequencies as readonly string[];
  const premiumOnly = LIMITS.premium.frequencies.filter((frequency) => !free.includes(frequency));
  const affected = tx
    .select()
    .from(folders)
    .where(and(eq(folders.userId, userId), inArray(folders.frequency, premiumOnly)))
    .all();
  for (const folder of affected) {
    const schedule = {
      frequency: "weekly" as const,
      dayOfWeek: folder.dayOfWeek,
      dayOfMonth: null,
    };
    tx.update(folders)
      .set({
        frequency: "weekly",
        // A new frequency ends a skip (docs/decisions/0213-skip-the-next-issue.md).
        skippedSendAt: null,
        nextSendAt:
          folder.nextSendAt === null
            ? null
            : nextSendAt(schedule, owner.timeZone, now, folder.lastSentAt),
      })
      .where(and(eq(folders.id, folder.id), eq(folders.userId, userId)))
      .run();
  }
  return affected.length;
}

type SubscriptionFields = {
  subscriptionTier: "free" | "premium";
  subscriptionStatus: string;
  subscriptionExpiresAt: Date | null;
  stripeCustomerId?: string;
  stripeSubscriptionId: string | null;
};

function applyToUser(tx: Transaction, user: User, fields: SubscriptionFields) {
  const wasPremium = isPremium(user);
  tx.update(users)
    .set({ ...fields, stripeCustomerId: fields.stripeCustomerId ?? user.stripeCustomerId })
    .where(eq(users.id, user.id))
    .run();
  const nowPremium =
    fields.subscriptionTier === "premium" && fields.subscriptionStatus === "active";
  if (wasPremium && !nowPremium) fallBackToFreeFrequencies(tx, user.id);
}

function applyCheckoutCompleted(
  tx: Transaction,
  session: Stripe.Checkout.Session,
  paysForPremium: boolean,
) {
  if (session.mode !== "subscription" || session.status !== "complete") return false;
  if (!paysForPremium) return false;
  const user = findUser(tx, {
    userId: Number(session.client_reference_id),
    customerId: idOf(session.customer),
  });
  if (!user) return false;
  const subscriptionId = idOf(session.subscription);
  // A later event for a newer subscription already moved the user on.
  if (user.stripeSubscriptionId && user.stripeSubscriptionId !== subscriptionId) {
    if (isPremium(user)) return false;
  }
  applyToUser(tx, user, {
    subscriptionTier: "premium",
    subscriptionStatus: "active",
    subscriptionExpiresAt: user.subscriptionExpiresAt,
    stripeCustomerId: idOf(session.customer) ?? undefined,
    stripeSubscriptionId: subscriptionId,
  });
  return true;
}

function applySubscription(tx: Transaction, subscription: Stripe.Subscription, deleted: boolean) {
  const user = findUser(tx, {
    userId: Number(subscription.metadata?.userId),
    customerId: idOf(subscription.customer),
  });
  if (!user) return false;
  // Events about an older subscription than the user's current one change nothing.
  if (user.stripeSubscriptionId && user.stripeSubscriptionId !== subscription.id) return false;
  const status = deleted ? "canceled" : statusFromStripe(subscription.status);
  const active = status === "active";
  applyToUser(tx, user, {
    subscriptionTier: active ? "premium" : "free",
    subscriptionStatus: status,
    subscriptionExpiresAt: deleted
      ? (fromUnix(subscription.ended_at) ?? new Date())
      : periodEnd(subscription),
    stripeCustomerId: idOf(subscription.customer) ?? undefined,
    stripeSubscriptionId: deleted ? null : subscription.id,
  });
  return true;
}

/** The subscription an invoice bills: under `parent` since API version 2025-03-31. */
function invoiceSubscriptionId(invoice: Stripe.Invoice) {
  const legacy = (invoice as { subscription?: string | { id: string } | null }).subscription;
  return idOf(invoice.parent?.subscription_details?.subscription ?? legacy);
}

/** A paid invoice of the user's current subscription moves the paid-until date on. */
function applyInvoicePaid(tx: Transaction, invoice: Stripe.Invoice) {
  const subscriptionId = invoiceSubscriptionId(invoice);
  const user = findUser(tx, { customerId: idOf(invoice.customer) });
  if (!user || !subscriptionId || user.stripeSubscriptionId !== subscriptionId) return false;
  const ends = invoice.lines?.data
    ?.map((line) => line.period?.end)
    .filter((end): end is number => typeof end === "number");
  if (!ends || ends.length === 0) return false;
  const paidUntil = fromUnix(Math.max(...ends));
  if (!paidUntil || (user.subscriptionExpiresAt && user.subscriptionExpiresAt >= paidUntil)) {
    return false;
  }
  tx.update(users).set({ subscriptionExpiresAt: paidUntil }).where(eq(users.id, user.id)).run();
  return true;
}

/**
 * Applies one verified event, once. For `checkout.session.completed`,
 * `checkoutPaysForPremium` is what Stripe said of that session's payment.
 */
export function applyStripeEvent(
  event: Stripe.Event,
  { checkoutPaysForPremium = false }: { checkoutPaysForPremium?: boolean } = {},
): EventOutcome {
  return writeTransaction((tx) => {
    const inserted = tx
      .insert(processedStripeEvents)
      .values({ id: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: processedStripeEvents.id })
      .get();
    if (!inserted) return "duplicate";
    if (!HANDLED.has(event.type)) return "ignored";
    let applied = false;
    if (event.type === "checkout.session.completed") {
      applied = applyCheckoutCompleted(tx, event.data.object, checkoutPaysForPremium);
    } else if (event.type === "customer.subscription.updated") {
      applied = applySubscription(tx, event.data.object, false);
    } else if (event.type === "customer.subscription.deleted") {
      applied = applySubscription(tx, event.data.object, true);
    } else if (event.type === "invoice.paid") {
      applied = applyInvoicePaid(tx, event.data.object);
    }
    return applied ? "applied" : "ignored";
  });
}
