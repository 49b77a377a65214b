import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import {
  alreadyUsedMessage,
  readUndoLink,
  undoCredentialChange,
  undoLinkUse,
} from "~/modules/accounts/credential-undo.server";
import { describeChange, undoRemovesCredential } from "~/modules/auth/credential-notices.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { invariantResponse } from "~/platform/errors.server";
import { z } from "~/platform/zod";

/**
 * The link in a credential notice: "It was not me". Opening it changes
 * nothing (mail scanners open links); its one button undoes the change and
 * secures the account, once: opened or posted again, it says when it was used.
 * docs/decisions/0109-credential-change-notices.md, docs/decisions/0176-undo-links-work-once.md.
 */
export const meta: MetaFunction = () => [
  { title: "Secure your account · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const found = readUndoLink(token);
  if (!found) return { token, change: null, used: null };
  const use = undoLinkUse(token);
  return {
    token,
    used: use ? alreadyUsedMessage(use, found.user.timeZone) : null,
    change: {
      subject: describeChange({ kind: found.link.kind }).subject,
      removesCredential: undoRemovesCredential(found.link.kind),
    },
  };
}

/** An empty token is an unusable link, answered as one. */
const LinkTokenSchema = z.object({ token: z.string().default("") });

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readProtectedForm(request), { schema: LinkTokenSchema });
  invariantResponse(submission.status === "success", "Bad Request", 400);
  return { outcome: await undoCredentialChange(request, submission.value.token) };
}

export default function UndoCredentialChange() {
  const { token, change, used: usedBefore } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const outcome = actionData?.outcome;
  if (outcome?.status === "undone") {
    const { removed, resetLinkSent, email } = outcome;
    return (
      <AuthCard
        title="Your account is secured"
        description={
          <div role="status" className="space-y-3">
            <p>
              {removed ? "The change was undone. " : ""}Every device was signed out.{" "}
              {resetLinkSent
                ? `We sent a link to ${email}: choose a new password with it, which also revokes every API token and lets you remove passkeys.`
                : "Ask for a password reset link in a little while: too many e-mails were sent just now."}
            </p>
          </div>
        }
      >
        <Link to="/forgot-password" className="btn-primary w-full">
          Reset my password
        </Link>
      </AuthCard>
    );
  }
  const used = outcome?.status === "used" ? outcome.message : usedBefore;
  if (used) {
    return (
      <AuthCard title="Your account is secured" description={<p role="status">{used}</p>}>
        <Link to="/forgot-password" className="btn-primary w-full">
          Reset my password
        </Link>
      </AuthCard>
    );
  }
  if (!change || actionData) {
    return (
      <AuthCard
        title="Secure your account"
        description={
          <p role="alert">
            This link is invalid or older than 7 days. You can still reset your password.
          </p>
        }
      >
        <Link to="/forgot-password" className={`${authLinkClass} text-sm`}>
          Reset my password
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Secure your account"
      description={
        <p>
          We told you: “{change.subject}”. If it was not you,{" "}
          {change.removesCredential ? "this undoes it, " : ""}signs out every device and e-mails you
          a link to choose a new password.
        </p>
      }
    >
      <Form method="post">
        <CsrfInput />
        <input type="hidden" name="token" value={token} />
        <SubmitButton pendingText="Securing...">
          {change.removesCredential ? "Undo it and secure my account" : "Secure my account"}
        </SubmitButton>
      </Form>
    </AuthCard>
  );
}
