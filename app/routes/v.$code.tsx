import type { LoaderFunctionArgs } from "@remix-run/node";
import {
  takeRecipientLinkUse,
  tooManyLinkUses,
} from "~/modules/sending/recipient-link-limit.server";
import { webVersionPage } from "~/modules/sending/web-version.server";

/**
 * "View in your browser": one recipient's copy of a sent issue, rendered like
 * the e-mail, no account needed (app/modules/sending/web-version.server.ts). Not
 * indexed, not cached by shared caches, and a link that stopped working (the
 * recipient left, the sender deleted the issue) gets the same 404 as a
 * forged one. A link used too often waits a while
 * (app/modules/sending/recipient-link-limit.server.ts).
 */
export async function loader({ params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  const use = await takeRecipientLinkUse("web", code);
  if (!use.allowed) return tooManyLinkUses(use.retryAfterSeconds);
  const html = webVersionPage(code);
  if (!html) {
    return new Response("This issue is no longer available.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "X-Robots-Tag": "noindex" },
    });
  }
  return new Response(`<!DOCTYPE html>${html.replace(/^<!DOCTYPE html>/i, "")}`, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "X-Robots-Tag": "noindex, nofollow",
      "Cache-Control": "private, no-store",
      // The address carries the recipient's code: it must not travel to the sites linked from it.
      "Referrer-Policy": "no-referrer",
    },
  });
}
