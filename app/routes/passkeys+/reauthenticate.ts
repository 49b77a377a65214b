import type { ActionFunctionArgs } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import {
  PasskeyAuthenticationSchema,
  parseAuthenticationResponse,
  signInOptionsResponse,
} from "~/modules/auth/passkeys.server";
import { reauthenticateWithPasskey } from "~/modules/auth/reauthentication.server";
import { getCurrentSession, requireUser } from "~/modules/auth/session.server";
import { parseIntentForm } from "~/platform/intent.server";
import { safeRedirectPath } from "~/platform/redirect";

/**
 * "Confirm it's you" with one of the account's own passkeys (JavaScript
 * only; the page offers the other ways without it). Another account's
 * passkey proves nothing here. docs/decisions/0107-reauthentication-window.md.
 */
export async function action({ request }: ActionFunctionArgs) {
  await requireUser(request);
  const session = (await getCurrentSession(request))!;
  const submission = parseIntentForm(await readProtectedForm(request), PasskeyAuthenticationSchema);
  const form = submission.status === "success" ? submission.value : null;
  if (form?.intent === "options") {
    return signInOptionsResponse(request, session.user.id);
  }
  const response = form ? parseAuthenticationResponse(form.response) : null;
  const verified = response ? await reauthenticateWithPasskey(request, session, response) : null;
  if (!verified) {
    return Response.json(
      { error: "That passkey did not work. Please try again, or use another way." },
      { status: 400 },
    );
  }
  return Response.json(
    { redirectTo: safeRedirectPath(form?.redirectTo, "/profile") },
    { headers: { "Set-Cookie": verified.cookie } },
  );
}
