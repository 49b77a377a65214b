import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { handleApiRequest } from "~/modules/api/api.server";
import { COMPILED_API_OPERATIONS } from "~/modules/api/api-operations.server";
import { UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import type { CrossSitePosts } from "~/platform/cross-site";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * The JSON API (README: API). Authorised by a personal access token in the
 * Authorization header only, never by the session cookie, so it needs no
 * CSRF token: a browser never attaches the header on another site's behalf.
 */
export function loader({ request }: LoaderFunctionArgs) {
  return handleApiRequest(request, COMPILED_API_OPERATIONS);
}

/**
 * Adding files to an item streams up to a full item's files (a folder's upload, which may
 * carry a clip, is `v1.folders.$folderId.upload.ts`); JSON bodies stay
 * within a form's limit (docs/decisions/0101-body-limits-by-route.md).
 */
export const bodyLimit: RouteBodyLimit = { multipart: UPLOAD_BODY_MAX_BYTES };

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "the JSON API's authority is the Authorization header's bearer token, never the session cookie; the Chrome extension posts with its own chrome-extension:// origin";

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  return handleApiRequest(request, COMPILED_API_OPERATIONS);
}
