import {
  type ActionFunctionArgs,
  createReadableStreamFromReadable,
  type EntryContext,
  type HandleDataRequestFunction,
  type LoaderFunctionArgs,
} from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { billingFormActionOrigins } from "~/utils/billing.server";
import { createCoalescingStream } from "~/utils/coalescing-stream.server";
import { env } from "~/utils/env.server";
import { startServerProcess } from "~/utils/lifecycle.server";
import { NonceProvider } from "~/utils/nonce-provider";
import { applySecurityHeaders, createNonce } from "~/utils/security-headers.server";

const ABORT_DELAY = 5_000;

startServerProcess();

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

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const nonce = createNonce();
  applySecurityHeaders(responseHeaders, { ...headerOptions, nonce });
  // A route asked for an answer without a page: the RFC 8058 one-click
  // unsubscribe (app/routes/unsubscribe.tsx), where mail apps expect a bare status.
  if (responseHeaders.has("X-Empty-Body")) {
    responseHeaders.delete("X-Empty-Body");
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  // Bots get the whole document at once; people get it streamed.
  const readyEvent = isbot(request.headers.get("user-agent") ?? "") ? "onAllReady" : "onShellReady";

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer
          context={remixContext}
          url={request.url}
          abortDelay={ABORT_DELAY}
          nonce={nonce}
        />
      </NonceProvider>,
      {
        nonce,
        [readyEvent]() {
          shellRendered = true;
          const body = createCoalescingStream();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) console.error(error);
        },
      },
    );
    // unref: a pending render must not hold the process open during shutdown.
    setTimeout(abort, ABORT_DELAY).unref();
  });
}

export const handleDataRequest: HandleDataRequestFunction = (response) => {
  applySecurityHeaders(response.headers, headerOptions);
  return response;
};

export function handleError(error: unknown, { request }: LoaderFunctionArgs | ActionFunctionArgs) {
  if (request.signal.aborted) return;
  console.error(error);
}
