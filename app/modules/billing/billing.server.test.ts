import { expect, test } from "vitest";
import {
  BillingNotConfigured,
  billingConfigured,
  billingFormActionOrigins,
  createCheckoutSession,
  createPortalSession,
} from "./billing.server";

const user = {
  id: 1,
  email: "free@example.com",
  firstName: null,
  lastName: null,
  stripeCustomerId: "cus_1",
  subscriptionTier: "free",
  subscriptionStatus: "inactive",
};

test("without the STRIPE_* settings billing is off and says so", async () => {
  expect(billingConfigured()).toBe(false);
  expect(billingFormActionOrigins()).toEqual([]);
  await expect(createCheckoutSession(user)).rejects.toBeInstanceOf(BillingNotConfigured);
  await expect(createPortalSession(user)).rejects.toThrow(/Billing is not configured/);
});

test("the webhook answers 503 without Stripe", async () => {
  const webhook = await import("~/routes/webhooks+/stripe");
  const result = await webhook.action({
    request: new Request("http://localhost:3000/webhooks/stripe", { method: "POST", body: "{}" }),
    params: {},
    context: {},
  });
  expect(result.status).toBe(503);
});
