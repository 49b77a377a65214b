import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { OneTimeCodeField } from "~/components/auth/one-time-code-field";
import { PasskeySignInButton } from "~/components/auth/passkey-buttons";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { listPasskeys } from "~/modules/auth/passkeys.server";
import { getCurrentSession, isSecondFactorSession, loginPath } from "~/modules/auth/session.server";
import { stepUpWithCode } from "~/modules/auth/step-up.server";
import {
  hasTwoFactor,
  INVALID_CODE_MESSAGE,
  SECOND_FACTOR_THROTTLED_MESSAGE,
} from "~/modules/auth/two-factor.server";
import { CodeSchema } from "~/modules/auth/two-factor-validation";
import { getFormConstraint } from "~/platform/form-constraint";
import { safeRedirectPath } from "~/platform/redirect";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * "Confirm it's you": a signed-in owner gives a second factor on this
 * session (admin pages need one: docs/decisions/0104-admin-needs-a-second-factor-session.md).
 * A code form that works without JavaScript, and a passkey with it.
 */
export const meta: MetaFunction = () => [
  { title: "Confirm it's you · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

const StepUpSchema = z.object({ code: CodeSchema, redirectTo: z.string().optional() });

/** This request's session, or a redirect to log in that comes back here. */
async function requireSession(request: Request) {
  const session = await getCurrentSession(request);
  if (!session) throw redirect(loginPath(request));
  return session;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const session = await requireSession(request);
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get("redirectTo"));
  if (isSecondFactorSession(session)) throw redirect(redirectTo);
  const codes = hasTwoFactor(session.user.id);
  if (!codes && listPasskeys(session.user.id).length === 0) {
    throw await redirectWithToast("/profile/two-factor", {
      title: "Set up two-factor sign-in",
      description: "There is no second factor to confirm it's you with yet.",
    });
  }
  return data({ redirectTo, codes });
}

export async function action({ request }: ActionFunctionArgs) {
  const session = await requireSession(request);
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: StepUpSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  const stepped = await stepUpWithCode(request, session, submission.value.code);
  if (stepped.status === "throttled") {
    return data(
      { result: submission.reply({ formErrors: [SECOND_FACTOR_THROTTLED_MESSAGE] }) },
      { status: 429 },
    );
  }
  if (stepped.status === "invalid") {
    return data(
      { result: submission.reply({ fieldErrors: { code: [INVALID_CODE_MESSAGE] } }) },
      { status: 400 },
    );
  }
  return redirect(safeRedirectPath(submission.value.redirectTo), {
    headers: { "Set-Cookie": stepped.cookie },
  });
}

export default function StepUpPage() {
  const { redirectTo, codes } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "step-up",
    lastResult: actionData?.result,
    constraint: getFormConstraint(StepUpSchema),
    // The code field takes focus; checked on blur, leaving it would move the buttons under the tap.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: StepUpSchema }),
  });
  return (
    <AuthCard
      title="Confirm it's you"
      description={
        <p>
          Sign in again with your second factor to go on
          {codes
            ? ": enter the 6-digit code from your authenticator app, or one of your recovery codes."
            : ": use a passkey of this account (this needs JavaScript)."}
        </p>
      }
      footer={
        <p>
          <Link to="/" className={authLinkClass}>
            Back to My Folders
          </Link>
        </p>
      }
    >
      {codes ? (
        <Form method="post" className="space-y-5" {...getFormProps(form)}>
          <CsrfInput />
          <input type="hidden" name="redirectTo" value={redirectTo} />
          <FormAlert errors={form.errors} />
          <OneTimeCodeField
            label="Code"
            inputProps={getInputProps(fields.code, { type: "text" })}
            errors={fields.code.errors}
            acceptsRecoveryCode
          />
          <SubmitButton pendingText="Checking...">Confirm</SubmitButton>
        </Form>
      ) : null}
      <div className="mt-3">
        <PasskeySignInButton
          action="/passkeys/step-up"
          redirectTo={redirectTo}
          label={codes ? "Use a passkey instead" : "Use a passkey"}
        />
      </div>
    </AuthCard>
  );
}
