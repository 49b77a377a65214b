import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { requireUser } from "~/modules/accounts/session.server";
import { findOwnedFile } from "~/modules/uploads/files.server";
import { invariantResponse } from "~/platform/errors.server";
import { storage } from "~/platform/storage.server";

/**
 * A stored file, to its owner only: anyone else (and any malformed key) gets
 * the same 404 as a file that does not exist.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const file = findOwnedFile(user.id, params.fileKey ?? "");
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
      "Cache-Control": "private, max-age=3600",
      "Content-Security-Policy":
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
    },
  });
}
