import type { LoaderFunctionArgs } from "@remix-run/node";
import { getUser } from "~/modules/auth/session.server";
import { getDraft, validateDraft } from "~/modules/uploads/upload-drafts.server";
import { orNotFound } from "~/platform/errors.server";

/**
 * The validation step's result as JSON, for "Check again" with JavaScript
 * (docs/product-rules.md, Uploads). Signed out, it answers 401 rather than redirecting: the
 * wizard says "Please log in again to continue." where the user is.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await getUser(request);
  if (!user) {
    return Response.json(
      { error: "Unauthorized" },
      { status: 401, headers: { "Cache-Control": "no-store" } },
    );
  }
  const draft = orNotFound(() => getDraft(user.id, params.draftId ?? ""));
  const { userValidation, folderValidations, uploadSize } = validateDraft(user.id, draft);
  return Response.json(
    { userValidation, folderValidations, uploadSize },
    { headers: { "Cache-Control": "no-store" } },
  );
}
