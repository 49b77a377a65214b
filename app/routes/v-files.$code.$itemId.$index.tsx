import type { LoaderFunctionArgs } from "@remix-run/node";
import { storedFileResponse } from "~/modules/files/files.server";
import {
  takeRecipientLinkUse,
  tooManyLinkUses,
} from "~/modules/sending/recipient-link-limit.server";
import { webVersionFile } from "~/modules/sending/web-version.server";

/**
 * A photo or file of a web version (`index` its place in the item), or a
 * link's picture (`index` "preview"), to whoever holds that recipient's link
 * while it works.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const number = (value: string | undefined) =>
    /^\d{1,15}$/.test(value ?? "") ? Number(value) : -1;
  const code = params.code ?? "";
  // Counted with the page it belongs to: one budget per recipient's copy.
  const use = await takeRecipientLinkUse("web", code);
  if (!use.allowed) return tooManyLinkUses(use.retryAfterSeconds);
  const index = params.index === "preview" ? "preview" : number(params.index);
  return storedFileResponse(request, webVersionFile(code, number(params.itemId), index), {
    "X-Robots-Tag": "noindex",
    "Referrer-Policy": "no-referrer",
  });
}
