import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import {
  acceptReauthenticationLink,
  type EmailLinkOutcome,
  readReauthenticationLink,
} from "~/modules/auth/reauthentication.server";
import { getCurrentSession, requireUser } from "~/modules/auth/session.server";
import { invariantResponse } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * The link "Confirm it's you" e-mails. Opening it changes nothing (mail
 * scanners open links); its one button re-verifies the session that asked,
 * in the browser that holds it. docs/decisions/0107-reauthentication-window.md.
 */
export const meta: MetaFunction = () => [
  { title: "Confirm it's you · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

async function linkOutcome(request: Request, token: string, use: boolean) {
  await requireUser(request);
  const session = (await getCurrentSession(request))!;
  return use
    ? acceptReauthenticationLink(session, token)
    : readReauthenticationLink(session, token);
}

export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const outcome = await linkOutcome(request, token, false);
  return { token, status: outcome.status };
}

/** An empty token is an unusable link, answered as one. */
const LinkTokenSchema = z.object({ token: z.string().default("") });

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readProtectedForm(request), { schema: LinkTokenSchema });
  invariantResponse(submission.status === "success", "Bad Request", 400);
  const outcome = await linkOutcome(request, submission.value.token, true);
  if (outcome.status === "ok") {
    return redirectWithToast(outcome.redirectTo, {
      title: "Confirmed",
      description: "It is you: go on with your change within 10 minutes.",
    });
  }
  return { status: outcome.status };
}

const MESSAGES: Record<Exclude<EmailLinkOutcome["status"], "ok">, string> = {
  "other-browser":
    "This link works only in the browser where you asked for it. Open it there, or ask for a new one here.",
  invalid: "This link is invalid, used or older than 15 minutes. Please ask for a new one.",
};

export default function ConfirmByEmail() {
  const { token, status: shown } = useLoaderData<typeof loader>();
  const status = useActionData<typeof action>()?.status ?? shown;
  if (status !== "ok") {
    return (
      <AuthCard title="Confirm it's you" description={<p role="alert">{MESSAGES[status]}</p>}>
        <Link to="/profile" className={`${authLinkClass} text-sm`}>
          Back to Profile Settings
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Confirm it's you"
      description={<p>Confirm that you asked to prove who you are, to go on with your change.</p>}
    >
      <Form method="post">
        <CsrfInput />
        <input type="hidden" name="token" value={token} />
        <SubmitButton pendingText="Confirming...">Confirm it is me</SubmitButton>
      </Form>
    </AuthCard>
  );
}
