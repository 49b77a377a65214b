import type { ActionFunctionArgs } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import {
  finishSignInWithPasskey,
  PasskeyAuthenticationSchema,
  parseAuthenticationResponse,
  signInOptionsResponse,
} from "~/modules/auth/passkeys.server";
import { finishSignIn, readPendingSignIn } from "~/modules/auth/two-factor-login.server";
import { parseIntentForm } from "~/platform/intent.server";
import { safeRedirectPath } from "~/platform/redirect";
import { recordSecurityEvent } from "~/platform/security-events.server";

/**
 * Signing in with a passkey, from the log-in page or in place of a code at
 * the two-factor step (JavaScript only; both pages offer the other methods
 * without it). A passkey checks the user on its device, so it signs in alone.
 */
export async function action({ request }: ActionFunctionArgs) {
  const submission = parseIntentForm(await readProtectedForm(request), PasskeyAuthenticationSchema);
  const form = submission.status === "success" ? submission.value : null;
  if (form?.intent === "options") {
    return signInOptionsResponse(request);
  }
  const response = form ? parseAuthenticationResponse(form.response) : null;
  const signedIn = response ? await finishSignInWithPasskey(request, response) : null;
  if (!signedIn) {
    recordSecurityEvent(request, {
      eventType: "two_factor_failed",
      severity: "low",
      responseStatus: 400,
      details: { method: "passkey" },
    });
    return Response.json(
      { error: "That passkey did not work. Please try again, or use another way to log in." },
      { status: 400 },
    );
  }
  const pending = await readPendingSignIn(request);
  const redirectTo =
    pending?.userId === signedIn.userId ? pending.redirectTo : safeRedirectPath(form?.redirectTo);
  const headers = await finishSignIn(
    request,
    { userId: signedIn.userId, redirectTo },
    { trustDevice: false, method: "passkey" },
  );
  headers.append("Set-Cookie", signedIn.cookie);
  return Response.json({ redirectTo }, { headers });
}
