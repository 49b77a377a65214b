import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireUser } from "~/modules/auth/session.server";
import { findOwnedFile, storedFileResponse } from "~/modules/files/files.server";

/**
 * A stored file, to its owner only: anyone else (and any malformed key) gets
 * the same 404 as a file that does not exist.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return storedFileResponse(request, findOwnedFile(user.id, params.fileKey ?? ""));
}
