import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { discardDraft } from "~/modules/uploads/upload-drafts.server";
import { redirectWithToast } from "~/platform/toast.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return redirect("/");
}

/** Closing the wizard: the draft and its unused files go. Another user's id removes nothing. */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  await readProtectedForm(request);
  await discardDraft(user.id, params.draftId ?? "");
  return redirectWithToast("/", { title: "Upload discarded" });
}
