import type { ActionFunctionArgs } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import {
  finishSignInWithPasskey,
  PasskeyAuthenticationSchema,
  parseAuthenticationResponse,
  signInOptionsResponse,
} from "~/modules/auth/passkeys.server";
import { getCurrentSession, raiseToSecondFactorSession } from "~/modules/auth/session.server";
import { parseIntentForm } from "~/platform/intent.server";
import { safeRedirectPath } from "~/platform/redirect";
import { recordSecurityEvent } from "~/platform/security-events.server";

/**
 * Confirming it's you with a passkey on the current session (the passkey way
 * of /login/step-up; JavaScript only). Only the signed-in account's own
 * passkeys count; the session is then replaced by a passkey session.
 */
export async function action({ request }: ActionFunctionArgs) {
  const session = await getCurrentSession(request);
  if (!session) return Response.json({ error: "Please log in again." }, { status: 401 });
  const submission = parseIntentForm(await readProtectedForm(request), PasskeyAuthenticationSchema);
  const form = submission.status === "success" ? submission.value : null;
  if (form?.intent === "options") {
    return signInOptionsResponse(request, session.user.id);
  }
  const response = form ? parseAuthenticationResponse(form.response) : null;
  const confirmed = response
    ? await finishSignInWithPasskey(request, response, session.user.id)
    : null;
  if (!confirmed) {
    recordSecurityEvent(request, {
      eventType: "two_factor_failed",
      severity: "medium",
      userId: session.user.id,
      sessionId: session.sessionId,
      responseStatus: 400,
      details: { method: "passkey", step: "step-up" },
    });
    return Response.json(
      { error: "That passkey did not work. Please try again." },
      { status: 400 },
    );
  }
  const headers = new Headers();
  headers.append("Set-Cookie", await raiseToSecondFactorSession(request, session, "passkey"));
  headers.append("Set-Cookie", confirmed.cookie);
  return Response.json({ redirectTo: safeRedirectPath(form?.redirectTo) }, { headers });
}
