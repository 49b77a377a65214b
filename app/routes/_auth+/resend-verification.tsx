import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useActionData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { EmailLinkRequestForm } from "~/components/auth/email-link-request-form";
import { resendVerification } from "~/modules/accounts/accounts.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { answerEmailLinkRequest } from "~/modules/auth/email-link-request.server";

export const meta: MetaFunction = () => [
  { title: "Resend verification email · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export async function action({ request }: ActionFunctionArgs) {
  return answerEmailLinkRequest(
    request,
    await readProtectedForm(request),
    "verification",
    resendVerification,
  );
}

export default function ResendVerificationPage() {
  const actionData = useActionData<typeof action>();

  if (actionData?.sent) {
    return (
      <AuthCard
        title="Resend verification email"
        description={
          <>
            <p role="status">
              If that address has an account waiting for confirmation, we've sent a new link.
            </p>
            <p>The link is valid for 24 hours. Check your spam folder if it doesn't arrive.</p>
          </>
        }
        footer={
          <p>
            <Link to="/login" className={authLinkClass}>
              Back to log in
            </Link>
          </p>
        }
      />
    );
  }

  return (
    <AuthCard
      title="Resend verification email"
      description={
        <p>
          Enter the email address you signed up with and we'll send you a new confirmation link.
        </p>
      }
      footer={
        <p>
          Already confirmed?{" "}
          <Link to="/login" className={authLinkClass}>
            Log In
          </Link>
        </p>
      }
    >
      <EmailLinkRequestForm
        id="resend-verification"
        lastResult={actionData?.result}
        submitLabel="Send a new link"
      />
    </AuthCard>
  );
}
