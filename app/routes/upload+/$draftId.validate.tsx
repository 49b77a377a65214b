import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireUser } from "~/utils/session.server";
import { getDraft, validateDraft } from "~/utils/upload-drafts.server";
import { notFoundOnForeignDraft } from "~/utils/upload-wizard.server";

/** The validation step's result as JSON, for "Check again" with JavaScript (spec section 3). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const draft = notFoundOnForeignDraft(() => getDraft(user.id, params.draftId ?? ""));
  const { userValidation, folderValidations, uploadSize } = validateDraft(user.id, draft);
  return Response.json(
    { userValidation, folderValidations, uploadSize },
    { headers: { "Cache-Control": "no-store" } },
  );
}
