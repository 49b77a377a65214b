import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { handleApiRequest } from "~/modules/api/api.server";
import { COMPILED_API_OPERATIONS } from "~/modules/api/api-operations.server";
import { VIDEO_UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import type { CrossSitePosts } from "~/platform/cross-site";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * The API's upload (POST /api/v1/folders/{folderId}/upload), served by the same
 * operations as the splat route `v1.$.ts`, in a module of its own so that only
 * this path takes one clip's body; every other API path keeps the upload limit
 * (docs/decisions/0222-videos-through-the-api.md).
 */
export const bodyLimit: RouteBodyLimit = { multipart: VIDEO_UPLOAD_BODY_MAX_BYTES };

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "the JSON API's upload: its authority is the bearer token, never the session cookie";

export function loader({ request }: LoaderFunctionArgs) {
  return handleApiRequest(request, COMPILED_API_OPERATIONS);
}

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  return handleApiRequest(request, COMPILED_API_OPERATIONS);
}
