import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/utils/csrf.server";
import { requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";
import { discardDraft } from "~/utils/upload-drafts.server";

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
