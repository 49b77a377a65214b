import type { ActionFunctionArgs } from "@remix-run/node";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { noticeCredentialChange } from "~/modules/auth/credential-notices.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { finishRegistration, registrationOptions } from "~/modules/auth/passkeys.server";
import {
  enrolmentNeedsEmail,
  isRecentlyReauthenticated,
  reauthenticatePath,
} from "~/modules/auth/reauthentication.server";
import { getCurrentSession, requireUser } from "~/modules/auth/session.server";
import { parseIntentForm } from "~/platform/intent.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { createToastHeaders } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * Adding a passkey from Profile Settings (JavaScript only: the browser's
 * WebAuthn call needs it). "options" starts the ceremony, "verify" stores
 * the passkey the browser made. Both ask for a session that proved who it
 * is just now (by e-mail for an admin's first second factor); otherwise the
 * answer names the page that asks (docs/decisions/0107-reauthentication-window.md).
 * Plain `Response.json`: a resource route's answer, with its status and
 * cookies, goes to the browser as it is.
 */
const PasskeyRegistrationSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("options") }),
  z.object({
    intent: z.literal("verify"),
    response: z.string().max(20_000),
    name: z.string().trim().max(50).optional(),
  }),
]);

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const session = (await getCurrentSession(request))!;
  const submission = parseIntentForm(await readProtectedForm(request), PasskeyRegistrationSchema);
  const emailOnly = enrolmentNeedsEmail(user.id);
  if (!isRecentlyReauthenticated(session.sessionId, { emailOnly })) {
    return Response.json(
      {
        error: "Please confirm it's you first.",
        reauthenticate: reauthenticatePath("/profile", { emailOnly }),
      },
      { status: 403 },
    );
  }
  const form = submission.status === "success" ? submission.value : null;
  if (form?.intent === "options") {
    const { options, cookie } = await registrationOptions(user);
    return Response.json(
      { options },
      { headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } },
    );
  }
  let response: RegistrationResponseJSON | null = null;
  try {
    response = form ? (JSON.parse(form.response) as RegistrationResponseJSON) : null;
  } catch {
    response = null;
  }
  const name = form?.name || "Passkey";
  const saved = form && response ? await finishRegistration(request, user, response, name) : null;
  if (!saved) {
    return Response.json(
      { error: "That passkey could not be added. Please try again." },
      { status: 400 },
    );
  }
  recordSecurityEvent(request, {
    eventType: "two_factor_enrolled",
    severity: "low",
    userId: user.id,
    responseStatus: 200,
    details: { method: "passkey" },
  });
  await noticeCredentialChange(request, user, {
    kind: "passkey-added",
    name,
    credential: response!.id,
  });
  const headers = await createToastHeaders({
    title: "Passkey added",
    description: "You can now sign in with it.",
  });
  headers.append("Set-Cookie", saved.cookie);
  return Response.json({ ok: true }, { headers });
}
