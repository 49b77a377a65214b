import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { EmailLinkRequestForm } from "~/components/auth/email-link-request-form";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import { passkeysOfResetToken, resetPassword } from "~/modules/accounts/accounts.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { PASSWORD_RULE, ResetPasswordSchema } from "~/modules/auth/user-validation";
import { formatDay } from "~/platform/dates";
import { getFormConstraint } from "~/platform/form-constraint";

const EXPIRED_MESSAGE = "This reset link is invalid or has expired. Please request a new one.";

export const meta: MetaFunction = () => [
  { title: "Reset your password · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

/**
 * Reading the link changes nothing. A dead link says so at once and offers a
 * new one; the token is checked again when the form is sent. The address is
 * not filled in: an old link must not tell its finder whose it was
 * (docs/decisions/0133-reset-link-checked-on-open.md). The form lists the account's passkeys, each ticked for removal: a
 * reset evicts everyone, and a passkey someone else added would outlive it.
 * docs/decisions/0108-password-reset-evicts-everyone.md.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token") || null;
  const passkeys = token ? passkeysOfResetToken(token) : null;
  return data(
    {
      token: passkeys ? token : null,
      passkeys: (passkeys ?? []).map((key) => ({
        id: key.id,
        name: key.name,
        // In UTC: the one opening the link has not shown yet that the account is theirs.
        added: formatDay(key.createdAt, "UTC"),
      })),
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: ResetPasswordSchema });
  const hideFields = ["password", "confirmPassword"];
  if (submission.status !== "success") {
    return data(
      { state: "form" as const, expired: false, result: submission.reply({ hideFields }) },
      { status: 400 },
    );
  }
  const { token, password, listedPasskey, removePasskey } = submission.value;
  // A passkey is kept only when the form listed it and its box was unticked.
  const keepPasskeyIds = listedPasskey.filter((id) => !removePasskey.includes(id));
  const ok = await resetPassword(request, token, password, { keepPasskeyIds });
  if (!ok) {
    return data(
      {
        state: "form" as const,
        expired: true,
        result: submission.reply({ formErrors: [EXPIRED_MESSAGE], hideFields }),
      },
      { status: 400 },
    );
  }
  return data({ state: "success" as const, expired: false, result: null });
}

export default function ResetPasswordPage() {
  const { token, passkeys } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "reset-password",
    lastResult: actionData?.result,
    defaultValue: { removePasskey: passkeys.map((key) => key.id) },
    constraint: getFormConstraint(ResetPasswordSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetPasswordSchema }),
  });

  const ticked = [fields.removePasskey.initialValue ?? []].flat();

  if (actionData?.state === "success") {
    return (
      <AuthCard
        title="Password updated"
        description={<p role="status">You can now log in with your new password.</p>}
      >
        <Link to="/login" className="btn-primary w-full">
          Log In
        </Link>
      </AuthCard>
    );
  }

  if (!token) {
    return (
      <AuthCard
        title="Reset your password"
        description={<p role="alert">{EXPIRED_MESSAGE}</p>}
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
          id="new-reset-link"
          action="/forgot-password"
          lastResult={null}
          submitLabel="Send a new link"
        />
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Reset your password"
      description={<p>Choose a new password for your account.</p>}
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
        <input type="hidden" name="token" value={token} />
        <FormAlert errors={form.errors} />
        {actionData?.expired ? (
          <p className="text-sm">
            <Link to="/forgot-password" className={authLinkClass}>
              Request a new one
            </Link>
          </p>
        ) : null}
        <Field
          label="New password"
          hint={fields.password.errors?.length ? undefined : PASSWORD_RULE}
          inputProps={{
            ...getInputProps(fields.password, { type: "password" }),
            autoComplete: "new-password",
          }}
          errors={fields.password.errors}
        />
        <Field
          label="Confirm password"
          inputProps={{
            ...getInputProps(fields.confirmPassword, { type: "password" }),
            autoComplete: "new-password",
          }}
          errors={fields.confirmPassword.errors}
        />
        <p className="text-sm text-stone-700">
          Resetting signs out every device, revokes every API token and forgets every trusted
          device.
        </p>
        {passkeys.length > 0 ? (
          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-stone-800">
              Passkeys: untick those you made and keep
            </legend>
            {passkeys.map((key) => (
              <label key={key.id} className="flex items-center gap-2 text-sm text-stone-800">
                <input type="hidden" name="listedPasskey" value={key.id} />
                <input
                  type="checkbox"
                  name="removePasskey"
                  value={key.id}
                  defaultChecked={ticked.includes(key.id)}
                  key={fields.removePasskey.key}
                  className="h-4 w-4 rounded-sm border-stone-400"
                />
                Remove “{key.name}” (added {key.added})
              </label>
            ))}
          </fieldset>
        ) : null}
        <SubmitButton pendingText="Resetting...">Reset Password</SubmitButton>
      </Form>
    </AuthCard>
  );
}
