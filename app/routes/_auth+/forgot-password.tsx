import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod";
import { type ActionFunctionArgs, data, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth-card";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/forms";
import { requestPasswordReset } from "~/utils/accounts.server";
import { readProtectedForm } from "~/utils/csrf.server";
import { refuseMailBurst } from "~/utils/mail-limits.server";
import { ForgotPasswordSchema } from "~/utils/user-validation";

export const meta: MetaFunction = () => [
  { title: "Forgot your password? · Thoughtfully" },
  { name: "description", content: "Get a link to reset your Thoughtfully password." },
];

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: ForgotPasswordSchema });
  if (submission.status !== "success") {
    return data({ sent: false as const, result: submission.reply() }, { status: 400 });
  }
  const refused = await refuseMailBurst("password-reset", request, submission.value.email);
  if (refused) {
    return data(
      { sent: false as const, result: submission.reply({ formErrors: [refused] }) },
      { status: 429 },
    );
  }
  requestPasswordReset(submission.value.email);
  return data({ sent: true as const, result: null });
}

export default function ForgotPasswordPage() {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "forgot-password",
    lastResult: actionData?.result,
    constraint: getZodConstraint(ForgotPasswordSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ForgotPasswordSchema }),
  });

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
      <Form method="post" className="space-y-5" {...getFormProps(form)}>
        <CsrfInput />
        <FormAlert errors={form.errors} />
        <Field
          label="Email"
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: "email",
          }}
          errors={fields.email.errors}
        />
        <SubmitButton pendingText="Sending...">Send reset link</SubmitButton>
      </Form>
    </AuthCard>
  );
}
