import { type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { followClick } from "~/modules/sending/delivery-analytics.server";

/**
 * A tracked copy's link: redirects only to an address that is one of that
 * issue's own links (app/modules/sending/delivery-analytics.server.ts); anything else,
 * or a link that is no longer valid, is a 404, never a redirect elsewhere.
 */
export function loader({ request, params }: LoaderFunctionArgs) {
  const url = new URL(request.url).searchParams.get("url") ?? "";
  const target = url.length <= 4096 ? followClick(params.code ?? "", url) : null;
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
