import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/utils/csrf.server";
import { parseFolderId } from "~/utils/folder-params.server";
import { refuseMailBurst } from "~/utils/mail-limits.server";
import { SendRuleError, sendNow } from "~/utils/sending.server";
import { requireUser } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

export async function loader({ params }: ActionFunctionArgs) {
  return redirect(`/folders/${parseFolderId(params.folderId)}`);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  await readProtectedForm(request);
  const back = `/folders/${folderId}`;
  const refused = await refuseMailBurst("send-now", request, user.email);
  if (refused) {
    return redirectWithToast(back, {
      title: "Send Failed",
      description: `You have sent several times in the last hour. ${refused}`,
      variant: "destructive",
    });
  }
  try {
    const result = await sendNow(user.id, folderId);
    if (!result) throw new Response("Not Found", { status: 404 });
    return redirectWithToast(back, {
      title: "Sent",
      description:
        result.pending > 0
          ? `${result.messages} sent; ${result.pending} will be retried shortly.`
          : `Your folder is on its way (${result.messages} ${result.messages === 1 ? "message" : "messages"}).`,
    });
  } catch (error) {
    if (!(error instanceof SendRuleError)) throw error;
    return redirectWithToast(back, {
      title: "Send Failed",
      description: error.message,
      variant: "destructive",
    });
  }
}
