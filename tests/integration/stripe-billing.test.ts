import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeEach, describe, expect, test, vi } from "vitest";
import { createFolder, createUser } from "#db/factories";
import {
  completedCheckoutSession,
  FAKE_STRIPE_API_VERSION,
  paidInvoice,
  startFakeStripe,
  stripeEventPayload,
  subscriptionObject,
} from "../e2e/support/fake-stripe";

/**
 * Premium through Stripe, end to end inside the process: the real `stripe`
 * library talks to a fake Stripe API on loopback (checkout, portal), and
 * webhooks signed with `stripe.webhooks.generateTestHeaderString` are posted
 * to the webhook route's action. The fake and the events speak the API version
 * the app pins (FAKE_STRIPE_API_VERSION).
 */
const SECRET_KEY = "sk_test_fake_key_for_thoughtfully";
const WEBHOOK_SECRET = "whsec_test_secret_for_thoughtfully";
const PRICE_ID = "price_premium_monthly";

const fake = await startFakeStripe(SECRET_KEY);
process.env.STRIPE_SECRET_KEY = SECRET_KEY;
process.env.STRIPE_PRICE_ID = PRICE_ID;
process.env.STRIPE_WEBHOOK_SECRET = WEBHOOK_SECRET;
process.env.STRIPE_API_BASE = fake.origin;

// Imported after the environment is set: env.server.ts reads it once.
const { db } = await import("~/platform/db.server");
const { folders, processedStripeEvents, users } = await import("#db/schema");
const { createSession, getCurrentSession } = await import("~/modules/auth/session.server");
const { issueCsrfToken } = await import("~/modules/auth/csrf.server");
const { recordReauthentication } = await import("~/modules/auth/reauthentication.server");
const { createCheckoutSession, createPortalSession, STRIPE_API_VERSION } = await import(
  "~/modules/billing/billing.server"
);
const webhook = await import("~/routes/webhooks+/stripe");
const upgradeRoute = await import("~/routes/upgrade");
const portalRoute = await import("~/routes/billing+/portal");
const successRoute = await import("~/routes/billing+/success");
const deleteRoute = await import("~/routes/profile+/delete");

afterAll(() => fake.close());

const signer = new Stripe("sk_test_unused", { telemetry: false });
let counter = 0;

/** A sender in London, where the delivery times below are written. */
const londonSender = () => createUser(db, { timeZone: "Europe/London" });

function userById(id: number) {
  return db.select().from(users).where(eq(users.id, id)).get()!;
}

async function signedInRequest(userId: number, path: string) {
  const setCookie = await createSession(userId, new Request("http://localhost:3000/"), "password");
  const cookie = setCookie.split(";")[0]!;
  const probe = new Request(`http://localhost:3000${path}`, { headers: { Cookie: cookie } });
  const session = await getCurrentSession(probe);
  // The owner confirmed it is them just now, as deleting the account asks.
  recordReauthentication(session!.sessionId, "password");
  const { token } = await issueCsrfToken(probe, session!.sessionId);
  return { cookie, token };
}

async function postForm(userId: number, path: string) {
  const { cookie, token } = await signedInRequest(userId, path);
  return new Request(`http://localhost:3000${path}`, {
    method: "POST",
    headers: {
      Cookie: cookie,
      Origin: "http://localhost:3000",
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ csrf: token }),
  });
}

function event(type: Stripe.Event.Type, object: Record<string, unknown>, id = `evt_${++counter}`) {
  return stripeEventPayload(type, object, { id });
}

function postWebhook(payload: string, header?: string) {
  return webhook.action({
    request: new Request("http://localhost:3000/webhooks/stripe", {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Stripe-Signature":
          header ?? signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
      },
      body: payload,
    }),
    params: {},
    context: {},
  });
}

function statusOf(result: Response) {
  return result.status;
}

/** Starts a real Checkout at the fake Stripe; returns its session id. */
async function startCheckout(userId: number) {
  await createCheckoutSession(userById(userId));
  return [...fake.checkoutSessions.keys()].at(-1)!;
}

function checkoutCompleted(
  userId: number,
  customer: string,
  subscription: string,
  sessionId: string,
  session: Record<string, unknown> = {},
) {
  return event(
    "checkout.session.completed",
    completedCheckoutSession({ id: sessionId, userId, customer, subscription, ...session }),
  );
}

function subscriptionEvent(
  type: "customer.subscription.updated" | "customer.subscription.deleted",
  customer: string,
  subscription: string,
  status: Stripe.Subscription.Status,
  periodEnd: number,
) {
  return event(
    type,
    subscriptionObject({
      id: subscription,
      customer,
      status,
      periodEnd,
      endedAt: type === "customer.subscription.deleted" ? periodEnd : null,
    }),
  );
}

beforeEach(() => {
  fake.calls.length = 0;
});

describe("checkout and portal through the real stripe library", () => {
  test("Upgrade creates the customer once, then a Checkout session, and answers 303 to it", async () => {
    const user = londonSender();
    const first = await upgradeRoute.action({
      request: await postForm(user.id, "/upgrade"),
      params: {},
      context: {},
    });
    expect(first).toBeInstanceOf(Response);
    const response = first as Response;
    expect(response.status).toBe(303);
    const location = response.headers.get("Location")!;
    expect(location.startsWith(`${fake.origin}/pay/cs_test_`)).toBe(true);

    const customerId = userById(user.id).stripeCustomerId;
    expect(customerId).toMatch(/^cus_/);
    expect(fake.calls.map((call) => call.path)).toEqual(["/v1/customers", "/v1/checkout/sessions"]);
    // The client asks for the API version the app pins, the one the fake speaks.
    expect(STRIPE_API_VERSION).toBe(FAKE_STRIPE_API_VERSION);
    expect(fake.calls.map((call) => call.apiVersion)).toEqual([
      STRIPE_API_VERSION,
      STRIPE_API_VERSION,
    ]);
    const checkout = fake.calls[1]!.params;
    expect(checkout.get("customer")).toBe(customerId);
    expect(checkout.get("mode")).toBe("subscription");
    expect(checkout.get("line_items[0][price]")).toBe(PRICE_ID);
    expect(checkout.get("client_reference_id")).toBe(String(user.id));
    expect(checkout.get("success_url")).toBe(
      "http://localhost:3000/billing/success?session_id={CHECKOUT_SESSION_ID}",
    );
    expect(checkout.get("cancel_url")).toBe("http://localhost:3000/billing/cancel");

    // A second upgrade reuses the stored customer.
    const again = await createCheckoutSession(userById(user.id));
    expect(again).toContain("/pay/cs_test_");
    expect(fake.calls.filter((call) => call.path === "/v1/customers")).toHaveLength(1);
    expect(fake.calls.at(-1)!.params.get("customer")).toBe(customerId);
    // Nothing was granted by starting a checkout.
    expect(userById(user.id).subscriptionTier).toBe("free");
  });

  test("Manage billing opens the customer portal for the stored customer", async () => {
    const user = londonSender();
    await createCheckoutSession(user);
    const response = (await portalRoute.action({
      request: await postForm(user.id, "/billing/portal"),
      params: {},
      context: {},
    })) as Response;
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toMatch(new RegExp(`^${fake.origin}/portal/bps_`));
    const call = fake.calls.at(-1)!;
    expect(call.path).toBe("/v1/billing_portal/sessions");
    expect(call.params.get("customer")).toBe(userById(user.id).stripeCustomerId);
    expect(call.params.get("return_url")).toBe("http://localhost:3000/profile");
    await expect(createPortalSession(londonSender())).rejects.toThrow(/no billing account/);
  });

  test("a wrong secret key is Stripe's error, not a crash", async () => {
    const { createStripeClient } = await import("~/modules/billing/billing.server");
    const wrong = createStripeClient("sk_test_wrong", fake.origin);
    await expect(wrong.customers.create({ email: "x@example.com" })).rejects.toBeInstanceOf(
      Stripe.errors.StripeAuthenticationError,
    );
  });
});

describe("the webhook", () => {
  test("upgrade then cancel moves the user to premium and back", async () => {
    const user = londonSender();
    const sessionId = await startCheckout(user.id);
    const customer = userById(user.id).stripeCustomerId!;
    const daily = createFolder(db, user.id, {
      name: "Daily",
      recipients: [{ name: "Mum", email: "mum@example.com" }],
      frequency: "daily",
      dayOfWeek: 3,
      nextSendAt: new Date(Date.now() + 60_000),
    });

    expect(
      statusOf(await postWebhook(checkoutCompleted(user.id, customer, "sub_A", sessionId))),
    ).toBe(200);
    let after = userById(user.id);
    expect(after).toMatchObject({
      subscriptionTier: "premium",
      subscriptionStatus: "active",
      stripeCustomerId: customer,
      stripeSubscriptionId: "sub_A",
    });

    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
    await postWebhook(
      subscriptionEvent("customer.subscription.updated", customer, "sub_A", "active", periodEnd),
    );
    after = userById(user.id);
    expect(after.subscriptionTier).toBe("premium");
    expect(after.subscriptionExpiresAt?.getTime()).toBe(periodEnd * 1000);

    await postWebhook(
      subscriptionEvent("customer.subscription.deleted", customer, "sub_A", "canceled", periodEnd),
    );
    after = userById(user.id);
    expect(after).toMatchObject({
      subscriptionTier: "free",
      subscriptionStatus: "canceled",
      stripeSubscriptionId: null,
      stripeCustomerId: customer,
    });
    const folder = db.select().from(folders).where(eq(folders.id, daily.id)).get()!;
    expect(folder.frequency).toBe("weekly");
    // Next Wednesday (dayOfWeek 3) at 00:01 London time.
    expect(folder.nextSendAt!.getTime()).toBeGreaterThan(Date.now());
    expect(
      new Intl.DateTimeFormat("en-GB", { weekday: "long", timeZone: "Europe/London" }).format(
        folder.nextSendAt!,
      ),
    ).toBe("Wednesday");
  });

  test("a wrong signature, a tampered body or a stale signature answers 400 and changes nothing", async () => {
    const user = londonSender();
    const payload = checkoutCompleted(user.id, "cus_x", "sub_x", "cs_test_never_created");
    const before = db.select().from(processedStripeEvents).all().length;

    const wrongSecret = signer.webhooks.generateTestHeaderString({
      payload,
      secret: "whsec_someone_else",
    });
    expect(statusOf(await postWebhook(payload, wrongSecret))).toBe(400);

    const signed = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = payload.replace(
      `"client_reference_id":"${user.id}"`,
      '"client_reference_id":"1"',
    );
    expect(tampered).not.toBe(payload);
    expect(statusOf(await postWebhook(tampered, signed))).toBe(400);

    const stale = signer.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect(statusOf(await postWebhook(payload, stale))).toBe(400);

    expect(statusOf(await postWebhook(payload, "garbage"))).toBe(400);

    expect(userById(user.id).subscriptionTier).toBe("free");
    expect(db.select().from(processedStripeEvents).all()).toHaveLength(before);
  });

  test("the same event twice has one effect", async () => {
    const user = londonSender();
    const customer = "cus_twice";
    db.update(users).set({ stripeCustomerId: customer }).where(eq(users.id, user.id)).run();
    fake.addCustomer(customer);
    const sessionId = await startCheckout(user.id);
    const periodEnd = Math.floor(Date.now() / 1000) + 86_400;
    const cancel = subscriptionEvent(
      "customer.subscription.deleted",
      customer,
      "sub_T",
      "canceled",
      periodEnd,
    );
    const grant = checkoutCompleted(user.id, customer, "sub_T", sessionId);

    await postWebhook(grant);
    await postWebhook(cancel);
    expect(userById(user.id).subscriptionTier).toBe("free");
    // Stripe redelivers the old checkout event: it is ignored, not re-applied.
    const again = await postWebhook(grant);
    expect(statusOf(again)).toBe(200);
    expect(await again.json()).toEqual({ received: true, outcome: "duplicate" });
    expect(userById(user.id).subscriptionTier).toBe("free");
    const id = JSON.parse(grant).id as string;
    expect(
      db.select().from(processedStripeEvents).where(eq(processedStripeEvents.id, id)).all(),
    ).toHaveLength(1);
  });

  test("a checkout that is not paid, or not for our price, grants nothing", async () => {
    const user = londonSender();
    const sessionId = await startCheckout(user.id);
    const customer = userById(user.id).stripeCustomerId!;
    const unpaid = await postWebhook(
      checkoutCompleted(user.id, customer, "sub_U", sessionId, { payment_status: "unpaid" }),
    );
    expect(await unpaid.json()).toEqual({ received: true, outcome: "ignored" });
    expect(userById(user.id).subscriptionTier).toBe("free");

    fake.checkoutSessions.get(sessionId)!.price = "price_some_other_product";
    const otherPrice = await postWebhook(checkoutCompleted(user.id, customer, "sub_U", sessionId));
    expect(await otherPrice.json()).toEqual({ received: true, outcome: "ignored" });
    expect(userById(user.id).subscriptionTier).toBe("free");
    expect(fake.calls.at(-1)!.path).toBe(`/v1/checkout/sessions/${sessionId}/line_items`);

    fake.checkoutSessions.get(sessionId)!.price = PRICE_ID;
    const paid = await postWebhook(checkoutCompleted(user.id, customer, "sub_U", sessionId));
    expect(await paid.json()).toEqual({ received: true, outcome: "applied" });
    expect(userById(user.id).subscriptionTier).toBe("premium");
  });

  test("a paid invoice of the current subscription moves the paid-until date on", async () => {
    const user = londonSender();
    const sessionId = await startCheckout(user.id);
    const customer = userById(user.id).stripeCustomerId!;
    await postWebhook(checkoutCompleted(user.id, customer, "sub_I", sessionId));
    const periodEnd = Math.floor(Date.now() / 1000) + 31 * 86_400;
    const invoice = (subscription: string, end: number) =>
      event(
        "invoice.paid",
        paidInvoice({ id: `in_${++counter}`, customer, subscription, periodEnd: end }),
      );
    expect(await (await postWebhook(invoice("sub_I", periodEnd))).json()).toMatchObject({
      outcome: "applied",
    });
    expect(userById(user.id).subscriptionExpiresAt?.getTime()).toBe(periodEnd * 1000);
    // Another subscription's invoice, or an older period, changes nothing.
    await postWebhook(invoice("sub_other", periodEnd + 86_400));
    await postWebhook(invoice("sub_I", periodEnd - 86_400));
    expect(userById(user.id).subscriptionExpiresAt?.getTime()).toBe(periodEnd * 1000);
  });

  test("an event in another API version is applied as read, and the log says once what to change", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const user = londonSender();
      const sessionId = await startCheckout(user.id);
      const customer = userById(user.id).stripeCustomerId!;
      await postWebhook(checkoutCompleted(user.id, customer, "sub_V", sessionId));
      const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
      // The fields read have the same shape since 2025-03-31.basil.
      const older = (end: number) =>
        stripeEventPayload(
          "customer.subscription.updated",
          subscriptionObject({ id: "sub_V", customer, status: "active", periodEnd: end }),
          { apiVersion: "2025-08-27.basil" },
        );
      expect(await (await postWebhook(older(periodEnd))).json()).toMatchObject({
        outcome: "applied",
      });
      expect(userById(user.id).subscriptionExpiresAt?.getTime()).toBe(periodEnd * 1000);
      await postWebhook(older(periodEnd + 86_400));
      const warnings = warn.mock.calls.map(([message]) => String(message));
      expect(warnings.filter((message) => message.includes("2025-08-27.basil"))).toEqual([
        `[billing] Stripe's webhook sent API version 2025-08-27.basil; the app reads ${STRIPE_API_VERSION}. Set the webhook endpoint's API version to ${STRIPE_API_VERSION} (docs/deploy.md, "Billing").`,
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  test("GET is not allowed", async () => {
    await expect(webhook.loader()).rejects.toMatchObject({ status: 405 });
  });
});

test("visiting the success page alone grants nothing", async () => {
  const user = londonSender();
  await createCheckoutSession(user);
  const { cookie } = await signedInRequest(user.id, "/billing/success");
  const result = await successRoute.loader({
    request: new Request("http://localhost:3000/billing/success?session_id=cs_test_forged", {
      headers: { Cookie: cookie },
    }),
    params: {},
    context: {},
  });
  expect(result).toEqual({ premium: false });
  const after = userById(user.id);
  expect(after.subscriptionTier).toBe("free");
  expect(after.subscriptionStatus).toBe("inactive");
  expect(after.stripeSubscriptionId).toBeNull();
});

describe("deleting a Premium account", () => {
  async function premiumUser(subscriptionId: string) {
    const user = londonSender();
    const sessionId = await startCheckout(user.id);
    const customer = userById(user.id).stripeCustomerId!;
    await postWebhook(checkoutCompleted(user.id, customer, subscriptionId, sessionId));
    fake.addSubscription(subscriptionId, customer);
    return user;
  }

  const deleteAccount = async (userId: number) =>
    deleteRoute.action({
      request: await postForm(userId, "/profile/delete"),
      params: {},
      context: {},
    });

  test("cancels the subscription with Stripe, then deletes the account", async () => {
    const user = await premiumUser("sub_D");
    const response = (await deleteAccount(user.id)) as Response;
    expect(response.status).toBe(302);
    expect(fake.calls.filter((call) => call.method === "DELETE").map((call) => call.path)).toEqual([
      "/v1/subscriptions/sub_D",
    ]);
    expect(fake.subscriptions.get("sub_D")!.status).toBe("canceled");
    expect(db.select().from(users).where(eq(users.id, user.id)).get()).toBeUndefined();
  });

  test("keeps the account and says why when Stripe cannot cancel", async () => {
    const user = await premiumUser("sub_E");
    fake.failCancellations(true);
    try {
      const result = await deleteAccount(user.id);
      expect(result).toEqual({ error: expect.stringMatching(/could not cancel your Premium/) });
    } finally {
      fake.failCancellations(false);
    }
    expect(userById(user.id).subscriptionTier).toBe("premium");
    expect(fake.subscriptions.get("sub_E")!.status).toBe("active");
  });

  test("a subscription Stripe already ended does not block the deletion", async () => {
    const user = await premiumUser("sub_F");
    fake.subscriptions.get("sub_F")!.status = "canceled";
    const response = (await deleteAccount(user.id)) as Response;
    expect(response.status).toBe(302);
    expect(db.select().from(users).where(eq(users.id, user.id)).get()).toBeUndefined();
  });
});
