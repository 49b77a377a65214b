import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod";
import { type ActionFunctionArgs, data, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth-card";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/forms";
import { resendVerification } from "~/utils/accounts.server";
import { readProtectedForm } from "~/utils/csrf.server";
import { refuseMailBurst } from "~/utils/mail-limits.server";
import { ResendVerificationSchema } from "~/utils/user-validation";

export const meta: MetaFunction = () => [
  { title: "Resend verification email · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: ResendVerificationSchema });
  if (submission.status !== "success") {
    return data({ sent: false as const, result: submission.reply() }, { status: 400 });
  }
  const refused = await refuseMailBurst("verification", request, submission.value.email);
  if (refused) {
    return data(
      { sent: false as const, result: submission.reply({ formErrors: [refused] }) },
      { status: 429 },
    );
  }
  resendVerification(submission.value.email);
  return data({ sent: true as const, result: null });
}

export default function ResendVerificationPage() {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "resend-verification",
    lastResult: actionData?.result,
    constraint: getZodConstraint(ResendVerificationSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResendVerificationSchema }),
  });

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
        <SubmitButton pendingText="Sending...">Send a new link</SubmitButton>
      </Form>
    </AuthCard>
  );
}
