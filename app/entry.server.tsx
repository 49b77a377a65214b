import { inspect } from "node:util";
import type {
  ActionFunctionArgs,
  EntryContext,
  HandleDataRequestFunction,
  LoaderFunctionArgs,
} from "@remix-run/node";
import { startServerProcess } from "~/lifecycle.server";
import { billingFormActionOrigins } from "~/modules/billing/billing.server";
import { addRetryAfterWhenBusy } from "~/platform/database-busy.server";
import { env } from "~/platform/env.server";
import { renderDocument } from "~/platform/render-document.server";
import { redactPathIn } from "~/platform/secret-paths";
import { applySecurityHeaders, createNonce } from "~/platform/security-headers.server";

startServerProcess();

// server/index.ts answers Fly's health check itself, ahead of everything else (decision 0230),
// and runs every other request inside the app's request context (the socket's peer).
export { healthResponse } from "~/modules/admin/health.server";
// and refuses another site's posts by the origin the app itself is served at (decision 0239).
export { appOrigin } from "~/platform/cross-site.server";
// and answers a busy database with a 503 for every route (decision 0246).
export { answeringDatabaseBusy } from "~/platform/database-busy.server";
export { runInRequestContext } from "~/platform/request-context.server";
export { clientIpOf } from "~/platform/request-info.server";

const headerOptions = {
  isHttps: env.isHttps,
  isDevelopment: env.NODE_ENV === "development",
  // Browsers apply form-action to the redirect that follows a POST, so the
  // third-party sign-in page and Stripe's Checkout and portal must be allowed too.
  formActionOrigins: [
    ...(env.OAUTH_AUTHORIZATION_URL ? [new URL(env.OAUTH_AUTHORIZATION_URL).origin] : []),
    ...billingFormActionOrigins(),
  ],
};

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const nonce = createNonce();
  applySecurityHeaders(responseHeaders, { ...headerOptions, nonce });
  addRetryAfterWhenBusy(responseHeaders);
  // A route asked for an answer without a page: the RFC 8058 one-click
  // unsubscribe (app/routes/unsubscribe.tsx), where mail apps expect a bare status.
  if (responseHeaders.has("X-Empty-Body")) {
    responseHeaders.delete("X-Empty-Body");
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const document = await renderDocument(remixContext, request.url, nonce);
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(document, { headers: responseHeaders, status: responseStatusCode });
}

export const handleDataRequest: HandleDataRequestFunction = (response) => {
  applySecurityHeaders(response.headers, headerOptions);
  addRetryAfterWhenBusy(response.headers);
  return response;
};

export function handleError(error: unknown, { request }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted) return;
  // The router's own errors (a POST to a route without an action) name the
  // address, and some carry a code: docs/decisions/0111-secret-paths-never-logged.md
  console.error(redactPathIn(inspect(error), new URL(request.url)));
}
