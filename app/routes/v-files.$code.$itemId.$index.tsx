import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import {
  takeRecipientLinkUse,
  tooManyLinkUses,
} from "~/modules/sending/recipient-link-limit.server";
import { webVersionFile } from "~/modules/sending/web-version.server";
import { invariantResponse } from "~/platform/errors.server";
import { storage } from "~/platform/storage.server";

/** A photo or file of a web version, to whoever holds that recipient's link while it works. */
export async function loader({ params }: LoaderFunctionArgs) {
  const number = (value: string | undefined) =>
    /^\d{1,15}$/.test(value ?? "") ? Number(value) : -1;
  const code = params.code ?? "";
  // Counted with the page it belongs to: one budget per recipient's copy.
  const use = await takeRecipientLinkUse("web", code);
  if (!use.allowed) return tooManyLinkUses(use.retryAfterSeconds);
  const file = webVersionFile(code, number(params.itemId), number(params.index));
  const stat = file ? await storage.stat(file.key) : null;
  const stream = file && stat ? await storage.get(file.key) : null;
  invariantResponse(file && stat && stream);
  const disposition = file.mimeType.startsWith("image/") ? "inline" : "attachment";
  return new Response(createReadableStreamFromReadable(stream), {
    headers: {
      "Content-Type": file.mimeType,
      "Content-Length": String(stat.size),
      "Content-Disposition": `${disposition}; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex",
      "Cache-Control": "private, max-age=3600",
      "Referrer-Policy": "no-referrer",
      "Content-Security-Policy":
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
    },
  });
}
