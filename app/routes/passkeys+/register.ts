import type { ActionFunctionArgs } from "@remix-run/node";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";
import { finishRegistration, registrationOptions } from "~/modules/accounts/passkeys.server";
import { requireUser } from "~/modules/accounts/session.server";
import { recordSecurityEvent } from "~/modules/admin/security-events.server";
import { readProtectedForm } from "~/platform/csrf.server";
import { parseIntentForm } from "~/platform/intent.server";
import { createToastHeaders } from "~/platform/toast.server";

/**
 * Adding a passkey from Profile Settings (JavaScript only: the browser's
 * WebAuthn call needs it). "options" starts the ceremony, "verify" stores
 * the passkey the browser made. Plain `Response.json`: a resource route's
 * answer, with its status and cookies, goes to the browser as it is.
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
  const submission = parseIntentForm(await readProtectedForm(request), PasskeyRegistrationSchema);
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
  const saved =
    form && response
      ? await finishRegistration(request, user, response, form.name || "Passkey")
      : null;
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
  const headers = await createToastHeaders({
    title: "Passkey added",
    description: "You can now sign in with it.",
  });
  headers.append("Set-Cookie", saved.cookie);
  return Response.json({ ok: true }, { headers });
}
