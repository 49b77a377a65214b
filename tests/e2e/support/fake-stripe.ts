import crypto from "node:crypto";
import http from "node:http";
import type Stripe from "stripe";

/**
 * The one Stripe API version this fake speaks, in its answers and in the events below: the
 * version the app pins (STRIPE_API_VERSION, app/modules/billing/billing.server.ts). A request
 * that asks for another one is refused, so a change of the app's version fails here until the
 * fake's shapes follow it (docs/decisions/0185-stripe-api-version-pinned.md).
 */
export const FAKE_STRIPE_API_VERSION = "2026-10-28.endive";

export type FakeStripeCall = {
  method: string;
  path: string;
  params: URLSearchParams;
  /** The request's Stripe-Version header. */
  apiVersion: string | undefined;
};

/** Any part of a Stripe object, checked against the `stripe` library's types of that version. */
type Shape<T> = T extends readonly (infer U)[]
  ? Shape<U>[]
  : T extends object
    ? { [K in keyof T]?: Shape<T[K]> }
    : T;

const unixNow = () => Math.floor(Date.now() / 1000);

/**
 * A webhook event's body as Stripe writes it for an endpoint on FAKE_STRIPE_API_VERSION; sign it
 * with `stripe.webhooks.generateTestHeaderString`.
 */
export function stripeEventPayload(
  type: Stripe.Event.Type,
  object: Record<string, unknown>,
  {
    id = `evt_${crypto.randomBytes(8).toString("hex")}`,
    apiVersion = FAKE_STRIPE_API_VERSION,
  } = {},
) {
  const event = {
    id,
    object: "event",
    api_version: apiVersion,
    created: unixNow(),
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  } satisfies Shape<Omit<Stripe.Event, "type" | "data">> & {
    type: Stripe.Event.Type;
    data: { object: unknown };
  };
  return JSON.stringify(event);
}

/** A completed, paid subscription Checkout session, as `checkout.session.completed` carries it. */
export function completedCheckoutSession(
  session: {
    id: string;
    userId: number;
    customer: string;
    subscription: string;
  } & Shape<Stripe.Checkout.Session>,
) {
  const { userId, ...rest } = session;
  return {
    object: "checkout.session",
    created: unixNow(),
    livemode: false,
    mode: "subscription",
    status: "complete",
    payment_status: "paid",
    client_reference_id: String(userId),
    customer_account: null,
    metadata: { userId: String(userId) },
    url: null,
    ...rest,
  } satisfies Shape<Stripe.Checkout.Session>;
}

/**
 * A subscription of one item: since 2025-03-31.basil its paid period is the item's
 * (`items.data[].current_period_end`); the subscription itself has none.
 */
export function subscriptionObject({
  id,
  customer,
  status,
  periodEnd,
  endedAt = null,
}: {
  id: string;
  customer: string;
  status: Stripe.Subscription.Status;
  periodEnd: number;
  endedAt?: number | null;
}) {
  return {
    id,
    object: "subscription",
    customer,
    customer_account: null,
    status,
    metadata: {},
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: endedAt,
    ended_at: endedAt,
    livemode: false,
    items: {
      object: "list",
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
      data: [
        {
          id: `si_${id}`,
          object: "subscription_item",
          subscription: id,
          quantity: 1,
          current_period_start: periodEnd - 30 * 86_400,
          current_period_end: periodEnd,
        },
      ],
    },
  } satisfies Shape<Stripe.Subscription>;
}

/**
 * A paid invoice of a subscription: since 2025-03-31.basil the subscription is under
 * `parent.subscription_details`, and the period is each line's.
 */
export function paidInvoice({
  id,
  customer,
  subscription,
  periodEnd,
}: {
  id: string;
  customer: string;
  subscription: string;
  periodEnd: number;
}) {
  return {
    id,
    object: "invoice",
    customer,
    customer_account: null,
    status: "paid",
    billing_reason: "subscription_cycle",
    livemode: false,
    parent: {
      type: "subscription_details",
      quote_details: null,
      subscription_details: { subscription, metadata: null },
    },
    lines: {
      object: "list",
      has_more: false,
      url: `/v1/invoices/${id}/lines`,
      data: [
        {
          id: `il_${id}`,
          object: "line_item",
          period: { start: periodEnd - 86_400, end: periodEnd },
        },
      ],
    },
  } satisfies Shape<Stripe.Invoice>;
}

type Stored = Record<string, unknown> & { id: string };

function escapeHtml(text: string) {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!,
  );
}

/**
 * A small stand-in for Stripe's API on loopback, for tests: the real `stripe`
 * library talks to it (host, port and protocol options). It checks the secret
 * key like Stripe does, speaks FAKE_STRIPE_API_VERSION only, and answers the calls the app
 * makes (create a customer, a Checkout session, a customer-portal session; read a price; list
 * a session's line items; cancel a subscription) with objects of that version's shapes, plus
 * two tiny HTML pages in place of Stripe's hosted Checkout and portal. Every API call is kept
 * in `calls` for assertions.
 */
export async function startFakeStripe(secretKey: string) {
  const calls: FakeStripeCall[] = [];
  const customers = new Map<string, Stored>();
  const checkoutSessions = new Map<string, Stored>();
  const portalSessions = new Map<string, Stored>();
  const subscriptions = new Map<string, Stored>();
  let cancellationsFail = false;
  let origin = "";

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const body = await new Promise<string>((resolve) => {
      let text = "";
      request.on("data", (chunk) => {
        text += chunk;
      });
      request.on("end", () => resolve(text));
    });
    const send = (status: number, payload: unknown) => {
      response.writeHead(status, {
        "Content-Type": "application/json",
        "Stripe-Version": FAKE_STRIPE_API_VERSION,
      });
      response.end(JSON.stringify(payload));
    };
    const page = (html: string) => {
      response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      response.end(
        `<!doctype html><html lang="en"><title>Fake Stripe</title><body>${html}</body></html>`,
      );
    };

    const hosted = /^\/(pay|portal)\/([\w-]+)$/.exec(url.pathname);
    if (hosted && request.method === "GET") {
      if (hosted[1] === "pay") {
        const session = checkoutSessions.get(hosted[2]!);
        if (!session) return send(404, { error: "no such session" });
        const success = String(session.success_url).replace("{CHECKOUT_SESSION_ID}", session.id);
        return page(
          `<h1>Fake Stripe Checkout</h1><p>Session ${escapeHtml(session.id)}</p>` +
            `<a href="${escapeHtml(success)}">Pay</a> <a href="${escapeHtml(String(session.cancel_url))}">Back</a>`,
        );
      }
      const portal = portalSessions.get(hosted[2]!);
      if (!portal) return send(404, { error: "no such session" });
      return page(
        `<h1>Fake Stripe customer portal</h1><a href="${escapeHtml(String(portal.return_url))}">Return</a>`,
      );
    }

    if (!url.pathname.startsWith("/v1/")) return send(404, { error: "not found" });
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      return send(401, {
        error: { type: "invalid_request_error", message: "Invalid API Key provided" },
      });
    }
    const params = new URLSearchParams(body);
    const apiVersion = request.headers["stripe-version"];
    const asked = Array.isArray(apiVersion) ? apiVersion[0] : apiVersion;
    calls.push({ method: request.method ?? "GET", path: url.pathname, params, apiVersion: asked });
    if (asked !== FAKE_STRIPE_API_VERSION) {
      return send(400, {
        error: {
          type: "invalid_request_error",
          message: `This fake Stripe speaks API version ${FAKE_STRIPE_API_VERSION} only, not ${asked ?? "the account's default"}.`,
        },
      });
    }
    const id = (prefix: string) => `${prefix}_${crypto.randomBytes(8).toString("hex")}`;
    const metadata = (prefix: string) =>
      Object.fromEntries(
        [...params]
          .filter(([key]) => key.startsWith(`${prefix}[`))
          .map(([key, value]) => [key.slice(prefix.length + 1, -1), value]),
      );

    if (request.method === "POST" && url.pathname === "/v1/customers") {
      const customer = {
        id: id("cus"),
        object: "customer",
        created: unixNow(),
        livemode: false,
        email: params.get("email"),
        name: params.get("name"),
        metadata: metadata("metadata"),
      } satisfies Shape<Stripe.Customer>;
      customers.set(customer.id, customer);
      return send(200, customer);
    }
    if (request.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const customer = params.get("customer");
      if (!customer || !customers.has(customer)) {
        return send(400, {
          error: { type: "invalid_request_error", message: `No such customer: '${customer}'` },
        });
      }
      const sessionId = id("cs_test");
      const session = {
        id: sessionId,
        object: "checkout.session",
        created: unixNow(),
        livemode: false,
        mode: params.get("mode") as Stripe.Checkout.Session.Mode,
        status: "open",
        payment_status: "unpaid",
        customer,
        customer_account: null,
        client_reference_id: params.get("client_reference_id"),
        subscription: null,
        success_url: params.get("success_url"),
        cancel_url: params.get("cancel_url"),
        metadata: metadata("metadata"),
        url: `${origin}/pay/${sessionId}`,
      } satisfies Shape<Stripe.Checkout.Session>;
      // The price is kept beside the session, for its line items.
      checkoutSessions.set(sessionId, { ...session, price: params.get("line_items[0][price]") });
      return send(200, session);
    }
    if (request.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
      const customer = params.get("customer");
      if (!customer || !customers.has(customer)) {
        return send(400, {
          error: { type: "invalid_request_error", message: `No such customer: '${customer}'` },
        });
      }
      const sessionId = id("bps");
      const session = {
        id: sessionId,
        object: "billing_portal.session",
        created: unixNow(),
        livemode: false,
        customer,
        customer_account: null,
        return_url: params.get("return_url"),
        url: `${origin}/portal/${sessionId}`,
      } satisfies Shape<Stripe.BillingPortal.Session>;
      portalSessions.set(sessionId, session);
      return send(200, session);
    }
    const lineItems = /^\/v1\/checkout\/sessions\/([\w-]+)\/line_items$/.exec(url.pathname);
    if (request.method === "GET" && lineItems) {
      const session = checkoutSessions.get(lineItems[1]!);
      if (!session) {
        return send(404, {
          error: {
            type: "invalid_request_error",
            code: "resource_missing",
            message: `No such checkout.session: '${lineItems[1]}'`,
          },
        });
      }
      return send(200, {
        object: "list",
        url: url.pathname,
        has_more: false,
        data: [
          {
            id: id("li"),
            object: "item",
            quantity: 1,
            price: { id: String(session.price), object: "price" },
          } satisfies Shape<Stripe.LineItem>,
        ],
      });
    }
    const pricePath = /^\/v1\/prices\/([\w-]+)$/.exec(url.pathname);
    if (request.method === "GET" && pricePath) {
      // Every price is Premium's: $4.99 a month.
      return send(200, {
        id: pricePath[1],
        object: "price",
        active: true,
        livemode: false,
        currency: "usd",
        unit_amount: 499,
        type: "recurring",
        recurring: {
          interval: "month",
          interval_count: 1,
          usage_type: "licensed",
          meter: null,
          trial_period_days: null,
        },
      } satisfies Shape<Stripe.Price>);
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([\w-]+)$/.exec(url.pathname);
    if (request.method === "DELETE" && subscriptionPath) {
      if (cancellationsFail) {
        return send(500, { error: { type: "api_error", message: "Something went wrong" } });
      }
      const subscription = subscriptions.get(subscriptionPath[1]!);
      if (!subscription || subscription.status === "canceled") {
        return send(404, {
          error: {
            type: "invalid_request_error",
            code: "resource_missing",
            message: `No such subscription: '${subscriptionPath[1]}'`,
          },
        });
      }
      subscription.status = "canceled";
      subscription.canceled_at = unixNow();
      subscription.ended_at = unixNow();
      return send(200, subscription);
    }
    send(404, {
      error: {
        type: "invalid_request_error",
        message: `Unrecognized request URL (${url.pathname})`,
      },
    });
  });

  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  server.unref();
  origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    calls,
    customers,
    checkoutSessions,
    subscriptions,
    /** A live subscription the app may cancel, paid for 30 days. */
    addSubscription(subscriptionId: string, customerId: string) {
      subscriptions.set(
        subscriptionId,
        subscriptionObject({
          id: subscriptionId,
          customer: customerId,
          status: "active",
          periodEnd: unixNow() + 30 * 86_400,
        }),
      );
    },
    /** Makes every cancellation answer 500, as when Stripe is down. */
    failCancellations(fail: boolean) {
      cancellationsFail = fail;
    },
    /** Lets a test make the fake know a customer the app stored earlier. */
    addCustomer(customerId: string) {
      customers.set(customerId, { id: customerId, object: "customer" });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
