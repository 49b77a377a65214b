import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { handleApiRequest } from "~/modules/api/api.server";
import { COMPILED_API_OPERATIONS } from "~/modules/api/api-operations.server";
import { replayWritesToPrimary } from "~/platform/replication.server";

/**
 * The JSON API (README: API). Authorised by a personal access token in the
 * Authorization header only, never by the session cookie, so it needs no
 * CSRF token: a browser never attaches the header on another site's behalf.
 */
export function loader({ request }: LoaderFunctionArgs) {
  return handleApiRequest(request, COMPILED_API_OPERATIONS);
}

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  return handleApiRequest(request, COMPILED_API_OPERATIONS);
}
