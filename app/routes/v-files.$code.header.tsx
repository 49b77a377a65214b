import type { LoaderFunctionArgs } from "@remix-run/node";
import {
  takeRecipientLinkUse,
  tooManyLinkUses,
} from "~/modules/sending/recipient-link-limit.server";
import { webVersionHeaderImage } from "~/modules/sending/web-version.server";

/** The sender's header image (branding) of a web version, to whoever holds that recipient's link while it works. */
export async function loader({ params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  // Counted with the page it belongs to: one budget per recipient's copy.
  const use = await takeRecipientLinkUse("web", code);
  if (!use.allowed) return tooManyLinkUses(use.retryAfterSeconds);
  const image = webVersionHeaderImage(code);
  if (!image)
    return new Response("Not Found", { status: 404, headers: { "X-Robots-Tag": "noindex" } });
  return new Response(new Uint8Array(image.content), {
    headers: {
      "Content-Type": image.contentType,
      "Content-Length": String(image.content.length),
      "Cache-Control": "private, max-age=3600",
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "no-referrer",
    },
  });
}
