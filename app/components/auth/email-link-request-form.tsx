import { getFormProps, getInputProps, type SubmissionResult, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import { EmailLinkRequestSchema } from "~/modules/auth/user-validation";
import { getFormConstraint } from "~/platform/form-constraint";

/** The one-field form of the pages that e-mail a link (forgot password, resend verification). */
export function EmailLinkRequestForm({
  id,
  lastResult,
  submitLabel,
  action,
}: {
  id: string;
  /** Another route's action, for a page that offers the request in place. */
  action?: string;
  lastResult: SubmissionResult<string[]> | null | undefined;
  submitLabel: string;
}) {
  const [form, fields] = useForm({
    id,
    lastResult,
    constraint: getFormConstraint(EmailLinkRequestSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: EmailLinkRequestSchema }),
  });
  return (
    <Form method="post" action={action} className="space-y-5" {...getFormProps(form)}>
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
      <SubmitButton pendingText="Sending...">{submitLabel}</SubmitButton>
    </Form>
  );
}
