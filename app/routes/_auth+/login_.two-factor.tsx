import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { OneTimeCodeField } from "~/components/auth/one-time-code-field";
import { PasskeySignInButton } from "~/components/auth/passkey-buttons";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import {
  INVALID_CODE_MESSAGE,
  RECOVERY_CODE_COUNT,
  recordSuccessfulSecondFactor,
  recoveryCodesLeft,
  SECOND_FACTOR_THROTTLED_MESSAGE,
  takeSecondFactorAttempt,
  verifySecondFactor,
} from "~/modules/auth/two-factor.server";
import { finishSignIn, readPendingSignIn } from "~/modules/auth/two-factor-login.server";
import { SecondFactorSchema } from "~/modules/auth/two-factor-validation";
import { getFormConstraint } from "~/platform/form-constraint";
import { clientIp } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { redirectWithToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [
  { title: "Two-factor sign-in · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

/** Only a browser that has just passed the password step has anything to do here. */
export async function loader({ request }: LoaderFunctionArgs) {
  if (!(await readPendingSignIn(request))) throw redirect("/login");
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const pending = await readPendingSignIn(request);
  if (!pending) {
    return redirectWithToast("/login", {
      title: "Please log in again",
      description: "The time to enter your code ran out.",
    });
  }
  const submission = parseWithZod(formData, { schema: SecondFactorSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  const ip = clientIp(request);
  const attempt = await takeSecondFactorAttempt(pending.userId, ip);
  if (!attempt.allowed) {
    recordSecurityEvent(request, {
      eventType: "rate_limit_exceeded",
      severity: "medium",
      userId: pending.userId,
      responseStatus: 429,
      details: { reason: "second_factor_throttled", retryAfterSeconds: attempt.retryAfterSeconds },
    });
    return data(
      { result: submission.reply({ formErrors: [SECOND_FACTOR_THROTTLED_MESSAGE] }) },
      { status: 429 },
    );
  }
  const method = await verifySecondFactor(pending.userId, submission.value.code);
  if (!method) {
    recordSecurityEvent(request, {
      eventType: "two_factor_failed",
      severity: "medium",
      userId: pending.userId,
      responseStatus: 400,
      details: { step: "login" },
    });
    return data(
      { result: submission.reply({ fieldErrors: { code: [INVALID_CODE_MESSAGE] } }) },
      { status: 400 },
    );
  }
  await recordSuccessfulSecondFactor(pending.userId, ip);
  const headers = await finishSignIn(request, pending, {
    trustDevice: submission.value.trustDevice === true,
    method: method === "totp" ? "totp" : "recovery-code",
  });
  if (method === "recovery") {
    const left = recoveryCodesLeft(pending.userId);
    recordSecurityEvent(request, {
      eventType: "recovery_code_used",
      severity: "medium",
      userId: pending.userId,
      responseStatus: 302,
      details: { left },
    });
    return redirectWithToast(
      pending.redirectTo,
      {
        title: "You used a recovery code",
        description: `That code no longer works. ${left} of ${RECOVERY_CODE_COUNT} left: make new ones in Profile Settings.`,
      },
      { headers },
    );
  }
  return redirect(pending.redirectTo, { headers });
}

export default function TwoFactorStep() {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "two-factor",
    lastResult: actionData?.result,
    constraint: getFormConstraint(SecondFactorSchema),
    // The code field takes focus; checked on blur, leaving it would move the buttons under the tap.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SecondFactorSchema }),
  });
  return (
    <AuthCard
      title="Two-factor sign-in"
      description={
        <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      }
      footer={
        <p>
          Not you?{" "}
          <Link to="/login" className={authLinkClass}>
            Log in with another account
          </Link>
        </p>
      }
    >
      <Form method="post" className="space-y-5" {...getFormProps(form)}>
        <CsrfInput />
        <FormAlert errors={form.errors} />
        <OneTimeCodeField
          label="Code"
          inputProps={getInputProps(fields.code, { type: "text" })}
          errors={fields.code.errors}
          acceptsRecoveryCode
        />
        <label className="flex items-center gap-2 text-sm text-stone-800">
          <input
            {...getInputProps(fields.trustDevice, { type: "checkbox" })}
            className="h-4 w-4 rounded-sm border-stone-400"
          />
          Trust this device for 30 days
        </label>
        <SubmitButton pendingText="Checking...">Verify</SubmitButton>
      </Form>
      <div className="mt-3">
        <PasskeySignInButton label="Use a passkey instead" />
      </div>
    </AuthCard>
  );
}
