import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useActionData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { EmailLinkRequestForm } from "~/components/auth/email-link-request-form";
import { requestPasswordReset } from "~/modules/accounts/accounts.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { answerEmailLinkRequest } from "~/modules/auth/email-link-request.server";

export const meta: MetaFunction = () => [
  { title: "Forgot your password? · Thoughtfully" },
  { name: "description", content: "Get a link to reset your Thoughtfully password." },
];

export async function action({ request }: ActionFunctionArgs) {
  return answerEmailLinkRequest(
    request,
    await readProtectedForm(request),
    "password-reset",
    requestPasswordReset,
  );
}

export default function ForgotPasswordPage() {
  const actionData = useActionData<typeof action>();

  if (actionData?.sent) {
    return (
      <AuthCard
        title="Check your email"
        description={
          <>
            <p role="status">
              If an account exists for that address, we've sent a link to reset your password. It is
              valid for one hour.
            </p>
            <p>
              Didn't get it? Check your spam folder, or{" "}
              <Link to="/forgot-password" className={authLinkClass}>
                try again
              </Link>
              .
            </p>
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
      title="Forgot your password?"
      description={
        <p>Enter the email address of your account and we'll send you a link to reset it.</p>
      }
      footer={
        <p>
          Remembered it?{" "}
          <Link to="/login" className={authLinkClass}>
            Log In
          </Link>
        </p>
      }
    >
      <EmailLinkRequestForm
        id="forgot-password"
        lastResult={actionData?.result}
        submitLabel="Send reset link"
      />
    </AuthCard>
  );
}
