import { type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { followClick } from "~/modules/sending/delivery-analytics.server";
import {
  takeRecipientLinkUse,
  tooManyLinkUses,
} from "~/modules/sending/recipient-link-limit.server";

/**
 * A tracked copy's link: redirects only to an address that is one of that
 * issue's own links (app/modules/sending/delivery-analytics.server.ts); anything else,
 * or a link that is no longer valid, is a 404, never a redirect elsewhere. A
 * link followed too often waits a while (app/modules/sending/recipient-link-limit.server.ts).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  const use = await takeRecipientLinkUse("click", code);
  if (!use.allowed) return tooManyLinkUses(use.retryAfterSeconds);
  const url = new URL(request.url).searchParams.get("url") ?? "";
  const target = url.length <= 4096 ? followClick(code, url) : null;
  if (!target) {
    return new Response("This link is not available.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "X-Robots-Tag": "noindex" },
    });
  }
  return redirect(target, {
    headers: {
      "Cache-Control": "no-store",
      "Referrer-Policy": "no-referrer",
      "X-Robots-Tag": "noindex",
    },
  });
}
