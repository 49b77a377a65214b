import type { LoaderFunctionArgs } from "@remix-run/node";
import { recordOpen } from "~/modules/sending/delivery-analytics.server";
import { takeRecipientLinkUse } from "~/modules/sending/recipient-link-limit.server";
import { userAgent } from "~/platform/request-info.server";

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

/**
 * The open image of a tracked (Premium) copy: counts an open when the link is
 * valid and the recipient still subscribed (app/modules/sending/delivery-analytics.server.ts).
 * Every request gets the same image, so it tells nobody whether it counted;
 * an image fetched too often (app/modules/sending/recipient-link-limit.server.ts)
 * is still shown, and no longer counted.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  if ((await takeRecipientLinkUse("open", code)).allowed) recordOpen(code, userAgent(request));
  return new Response(PIXEL, {
    headers: {
      "Content-Type": "image/gif",
      "Content-Length": String(PIXEL.length),
      "Cache-Control": "no-store, private",
      "X-Robots-Tag": "noindex",
    },
  });
}
