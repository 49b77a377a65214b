import crypto from "node:crypto";
import http from "node:http";

export type FakeStripeCall = { method: string; path: string; params: URLSearchParams };

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
 * key like Stripe does and answers the calls the app makes (create a customer,
 * a Checkout session, a customer-portal session; read a price; list a session's line items;
 * cancel a subscription), plus two tiny HTML pages in place of Stripe's hosted
 * Checkout and portal. Every API call is kept in `calls` for assertions.
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
      response.writeHead(status, { "Content-Type": "application/json" });
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
    calls.push({ method: request.method ?? "GET", path: url.pathname, params });
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
        email: params.get("email"),
        name: params.get("name"),
        metadata: metadata("metadata"),
      };
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
        mode: params.get("mode"),
        status: "open",
        customer,
        client_reference_id: params.get("client_reference_id"),
        success_url: params.get("success_url"),
        cancel_url: params.get("cancel_url"),
        price: params.get("line_items[0][price]"),
        metadata: metadata("metadata"),
        url: `${origin}/pay/${sessionId}`,
      };
      checkoutSessions.set(sessionId, session);
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
        customer,
        return_url: params.get("return_url"),
        url: `${origin}/portal/${sessionId}`,
      };
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
            price: { id: session.price, object: "price" },
          },
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
        currency: "usd",
        unit_amount: 499,
        type: "recurring",
        recurring: { interval: "month", interval_count: 1 },
      });
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
    /** A live subscription the app may cancel. */
    addSubscription(subscriptionId: string, customerId: string) {
      subscriptions.set(subscriptionId, {
        id: subscriptionId,
        object: "subscription",
        customer: customerId,
        status: "active",
      });
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
