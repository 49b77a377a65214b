import type { ActionFunctionArgs } from "@remix-run/node";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";
import { PASSKEY_OPTIONS_THROTTLED, signInOptions } from "~/modules/accounts/passkeys.server";
import { reauthenticateWithPasskey } from "~/modules/accounts/reauthentication.server";
import { getCurrentSession, requireUser } from "~/modules/accounts/session.server";
import { readProtectedForm } from "~/platform/csrf.server";
import { parseIntentForm } from "~/platform/intent.server";
import { safeRedirectPath } from "~/platform/redirect";

/**
 * "Confirm it's you" with one of the account's own passkeys (JavaScript
 * only; the page offers the other ways without it). Another account's
 * passkey proves nothing here. docs/decisions/0107-reauthentication-window.md.
 */
const PasskeyReauthenticationSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("options") }),
  z.object({
    intent: z.literal("verify"),
    response: z.string().max(20_000),
    redirectTo: z.string().optional(),
  }),
]);

export async function action({ request }: ActionFunctionArgs) {
  await requireUser(request);
  const session = (await getCurrentSession(request))!;
  const submission = parseIntentForm(
    await readProtectedForm(request),
    PasskeyReauthenticationSchema,
  );
  const form = submission.status === "success" ? submission.value : null;
  if (form?.intent === "options") {
    const started = await signInOptions(request, session.user.id);
    if (!started) return Response.json({ error: PASSKEY_OPTIONS_THROTTLED }, { status: 429 });
    return Response.json(
      { options: started.options },
      { headers: { "Set-Cookie": started.cookie, "Cache-Control": "no-store" } },
    );
  }
  let response: AuthenticationResponseJSON | null = null;
  try {
    response = form ? (JSON.parse(form.response) as AuthenticationResponseJSON) : null;
  } catch {
    response = null;
  }
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
