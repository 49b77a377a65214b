import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { noticeCredentialChange } from "~/modules/auth/credential-notices.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { listPasskeys, removePasskey } from "~/modules/auth/passkeys.server";
import { requireUser } from "~/modules/auth/session.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * Removing a passkey from Profile Settings: a plain form, so it works without
 * JavaScript. Taking a way in away needs no proof; the owner is told.
 */
export async function loader() {
  return redirect("/profile");
}

const RemoveSchema = z.object({ passkeyId: z.string().max(1024) });

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const submission = parseWithZod(await readProtectedForm(request), { schema: RemoveSchema });
  // No passkey has a missing or overlong id: such a form removes nothing, as an unknown id does.
  const passkeyId = submission.status === "success" ? submission.value.passkeyId : "";
  const name = listPasskeys(user.id).find((key) => key.id === passkeyId)?.name;
  const removed = removePasskey(user.id, passkeyId);
  if (removed) await noticeCredentialChange(request, user, { kind: "passkey-removed", name });
  return redirectWithToast("/profile", {
    title: removed ? "Passkey removed" : "That passkey was already removed",
    description: removed ? "It can no longer sign in to your account." : undefined,
  });
}
