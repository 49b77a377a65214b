import type { LoaderFunctionArgs } from "@remix-run/node";
import { storedFileResponse } from "~/modules/files/files.server";
import {
  takeRecipientLinkUse,
  tooManyLinkUses,
} from "~/modules/sending/recipient-link-limit.server";
import { webVersionFile } from "~/modules/sending/web-version.server";

/**
 * A photo, file or video of a web version (`index` its place in the item), a
 * link's picture (`index` "preview"), a video's poster (`index` "poster") or a photo's
 * thumbnail (`index` "thumb", shown by the recipient's archive), to whoever holds that
 * recipient's link while it works.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const number = (value: string | undefined) =>
    /^\d{1,15}$/.test(value ?? "") ? Number(value) : -1;
  const code = params.code ?? "";
  // Counted with the page it belongs to: one budget per recipient's copy. A video's
  // player asks a few ranges to play and one per seek, far within the budget.
  const use = await takeRecipientLinkUse("web", code);
  if (!use.allowed) return tooManyLinkUses(use.retryAfterSeconds);
  const index =
    params.index === "preview" || params.index === "poster" || params.index === "thumb"
      ? params.index
      : number(params.index);
  return storedFileResponse(request, webVersionFile(code, number(params.itemId), index), {
    "X-Robots-Tag": "noindex",
    "Referrer-Policy": "no-referrer",
  });
}
