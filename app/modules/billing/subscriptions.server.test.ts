import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { folders, users } from "#db/schema";
import { getUsage } from "~/modules/plans/quota.server";
import { db } from "~/platform/db.server";
import { applyStripeEvent, statusFromStripe } from "./subscriptions.server";

let counter = 0;

function newUser(values: Partial<typeof users.$inferInsert> = {}) {
  return createUser(db, { timeZone: "America/New_York", ...values });
}

function stripeEvent(type: string, object: Record<string, unknown>): Stripe.Event {
  counter += 1;
  return { id: `evt_unit_${counter}`, type, data: { object } } as unknown as Stripe.Event;
}

function subscription(customer: string, id: string, status: string, extra = {}) {
  return {
    id,
    customer,
    status,
    metadata: {},
    cancel_at: null,
    ended_at: null,
    items: { data: [{ current_period_end: 2_000_000_000 }] },
    ...extra,
  };
}

const user = (id: number) => db.select().from(users).where(eq(users.id, id)).get()!;

describe("applyStripeEvent", () => {
  test("checkout completion finds the user by client_reference_id and grants premium", () => {
    const payer = newUser();
    const outcome = applyStripeEvent(
      stripeEvent("checkout.session.completed", {
        mode: "subscription",
        status: "complete",
        client_reference_id: String(payer.id),
        customer: "cus_1",
        subscription: "sub_1",
      }),
      { checkoutPaysForPremium: true },
    );
    expect(outcome).toBe("applied");
    expect(user(payer.id)).toMatchObject({
      subscriptionTier: "premium",
      subscriptionStatus: "active",
      stripeCustomerId: "cus_1",
      stripeSubscriptionId: "sub_1",
    });
    expect(getUsage(payer.id).limits.maxFolders).toBe(Number.POSITIVE_INFINITY);
  });

  test("an unfinished checkout or an unknown user changes nothing", () => {
    const payer = newUser();
    expect(
      applyStripeEvent(
        stripeEvent("checkout.session.completed", {
          mode: "subscription",
          status: "open",
          client_reference_id: String(payer.id),
          customer: "cus_open",
          subscription: null,
        }),
        { checkoutPaysForPremium: true },
      ),
    ).toBe("ignored");
    // Complete, but not shown to be paid for our price.
    expect(
      applyStripeEvent(
        stripeEvent("checkout.session.completed", {
          mode: "subscription",
          status: "complete",
          client_reference_id: String(payer.id),
          customer: "cus_unpaid",
          subscription: "sub_unpaid",
        }),
      ),
    ).toBe("ignored");
    expect(
      applyStripeEvent(
        stripeEvent("customer.subscription.updated", subscription("cus_nobody", "sub_x", "active")),
      ),
    ).toBe("ignored");
    expect(user(payer.id).subscriptionTier).toBe("free");
  });

  test("subscription updates find the user by customer and set status and period end", () => {
    const payer = newUser({ stripeCustomerId: "cus_upd" });
    applyStripeEvent(
      stripeEvent("customer.subscription.updated", subscription("cus_upd", "sub_u", "trialing")),
    );
    expect(user(payer.id)).toMatchObject({
      subscriptionTier: "premium",
      subscriptionStatus: "active",
      stripeSubscriptionId: "sub_u",
    });
    expect(user(payer.id).subscriptionExpiresAt?.getTime()).toBe(2_000_000_000_000);

    applyStripeEvent(
      stripeEvent("customer.subscription.updated", subscription("cus_upd", "sub_u", "past_due")),
    );
    expect(user(payer.id)).toMatchObject({
      subscriptionTier: "free",
      subscriptionStatus: "past_due",
    });
  });

  test("events about an older subscription do not touch the current one", () => {
    const payer = newUser({
      stripeCustomerId: "cus_old",
      stripeSubscriptionId: "sub_new",
      subscriptionTier: "premium",
      subscriptionStatus: "active",
    });
    expect(
      applyStripeEvent(
        stripeEvent(
          "customer.subscription.deleted",
          subscription("cus_old", "sub_old", "canceled"),
        ),
      ),
    ).toBe("ignored");
    expect(user(payer.id).subscriptionTier).toBe("premium");
  });

  test("when premium ends, daily and biweekly folders go weekly; nothing is deleted", () => {
    const payer = newUser({
      stripeCustomerId: "cus_end",
      stripeSubscriptionId: "sub_end",
      subscriptionTier: "premium",
      subscriptionStatus: "active",
    });
    const make = (name: string, frequency: "daily" | "biweekly" | "monthly", next: Date | null) =>
      createFolder(db, payer.id, {
        name,
        recipients: [{ name: "A", email: "a@example.com" }],
        frequency,
        dayOfWeek: 5,
        dayOfMonth: frequency === "monthly" ? 12 : null,
        nextSendAt: next,
      });
    const soon = new Date(Date.now() + 3_600_000);
    const made = [
      make("d", "daily", soon),
      make("b", "biweekly", soon),
      make("m", "monthly", soon),
      make("paused", "daily", null),
    ];
    for (let index = 0; index < 4; index++) make(`extra-${index}`, "monthly", soon);

    applyStripeEvent(
      stripeEvent("customer.subscription.deleted", subscription("cus_end", "sub_end", "canceled")),
    );
    const after = db.select().from(folders).where(eq(folders.userId, payer.id)).all();
    expect(after).toHaveLength(8);
    const byName = new Map(after.map((folder) => [folder.name, folder]));
    expect(byName.get("d")!.frequency).toBe("weekly");
    expect(byName.get("b")!.frequency).toBe("weekly");
    expect(byName.get("m")!.frequency).toBe("monthly");
    expect(byName.get("m")!.nextSendAt?.getTime()).toBe(made[2]!.nextSendAt?.getTime());
    expect(byName.get("paused")!.nextSendAt).toBeNull();
    const weekday = new Intl.DateTimeFormat("en-US", {
      weekday: "long",
      timeZone: "America/New_York",
    });
    expect(weekday.format(byName.get("d")!.nextSendAt!)).toBe("Friday");
    // Over the free limit: readable, but no new folder until usage fits.
    const usage = getUsage(payer.id);
    expect(usage.tier).toBe("free");
    expect(usage.folderCount).toBeGreaterThan(usage.limits.maxFolders);
  });

  test("an event already processed is a duplicate; other event types are recorded and ignored", () => {
    const payer = newUser({ stripeCustomerId: "cus_dup" });
    const once = stripeEvent(
      "customer.subscription.updated",
      subscription("cus_dup", "sub_dup", "active"),
    );
    expect(applyStripeEvent(once)).toBe("applied");
    db.update(users).set({ subscriptionTier: "free" }).where(eq(users.id, payer.id)).run();
    expect(applyStripeEvent(once)).toBe("duplicate");
    expect(user(payer.id).subscriptionTier).toBe("free");
    expect(applyStripeEvent(stripeEvent("invoice.paid", { id: "in_1" }))).toBe("ignored");
  });

  test("Stripe's trialing counts as active, every other status does not", () => {
    expect(statusFromStripe("active")).toBe("active");
    expect(statusFromStripe("trialing")).toBe("active");
    expect(statusFromStripe("unpaid")).toBe("unpaid");
  });
});
