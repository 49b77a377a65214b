import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { sendNow } from "~/modules/sending/sending.server";
import { invariantResponse, RuleError } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

export async function loader({ params }: ActionFunctionArgs) {
  return redirect(`/folders/${parseFolderId(params.folderId)}`);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  await readProtectedForm(request);
  const back = `/folders/${folderId}`;
  try {
    const result = await sendNow(user.id, folderId);
    invariantResponse(result);
    return redirectWithToast(back, {
      title: "Sent",
      description:
        result.pending > 0
          ? `${result.messages} sent; ${result.pending} will be retried shortly.`
          : `Your folder is on its way (${result.messages} ${result.messages === 1 ? "message" : "messages"}).`,
    });
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return redirectWithToast(back, {
      title: "Send Failed",
      description: error.message,
      variant: "destructive",
    });
  }
}
