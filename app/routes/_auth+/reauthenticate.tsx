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
import { AuthCard, AuthNotice, authLinkClass } from "~/components/auth/auth-card";
import { OneTimeCodeField } from "~/components/auth/one-time-code-field";
import { PasskeyReauthenticateButton } from "~/components/auth/passkey-buttons";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { listPasskeys } from "~/modules/auth/passkeys.server";
import {
  emailReauthenticationLink,
  guardedChangeName,
  REAUTHENTICATION_THROTTLED_MESSAGE,
  reauthenticateWithCode,
  reauthenticateWithPassword,
  WRONG_PASSWORD_MESSAGE,
} from "~/modules/auth/reauthentication.server";
import {
  CodeReauthenticationSchema,
  PasswordReauthenticationSchema,
  ReauthenticateSchema,
} from "~/modules/auth/reauthentication-validation";
import { getCurrentSession, requireUser } from "~/modules/auth/session.server";
import { hasTwoFactor, INVALID_CODE_MESSAGE } from "~/modules/auth/two-factor.server";
import { getFormConstraint } from "~/platform/form-constraint";
import { parseIntentForm } from "~/platform/intent.server";
import { safeRedirectPath } from "~/platform/redirect";

/**
 * "Confirm it's you": the page every sensitive change sends a session to
 * (reauthentication.server.ts). The password, a current code, a passkey (with
 * JavaScript), or a link e-mailed to the account's address; then back to
 * where the person was. An admin's first second factor accepts only the
 * e-mailed link. docs/decisions/0107-reauthentication-window.md.
 */
export const meta: MetaFunction = () => [
  { title: "Confirm it's you · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const url = new URL(request.url);
  const emailOnly = url.searchParams.get("by") === "email";
  const redirectTo = safeRedirectPath(url.searchParams.get("redirectTo"), "/profile");
  return {
    redirectTo,
    change: guardedChangeName(redirectTo),
    emailOnly,
    email: user.email,
    password: !emailOnly && Boolean(user.passwordHash),
    code: !emailOnly && hasTwoFactor(user.id),
    passkey: !emailOnly && listPasskeys(user.id).length > 0,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  await requireUser(request);
  const session = (await getCurrentSession(request))!;
  const submission = parseIntentForm(await readProtectedForm(request), ReauthenticateSchema);
  const intent = submission.payload.intent;
  if (submission.status !== "success") {
    return data(
      { intent, result: submission.reply({ hideFields: ["password"] }), sent: false },
      { status: 400 },
    );
  }
  const redirectTo = safeRedirectPath(submission.value.redirectTo, "/profile");
  if (submission.value.intent === "email") {
    const refused = await emailReauthenticationLink(request, session, redirectTo);
    if (refused) {
      return data(
        { intent, result: submission.reply({ formErrors: [refused] }), sent: false },
        { status: 429 },
      );
    }
    return data({ intent, result: null, sent: true });
  }
  const emailOnly = new URL(request.url).searchParams.get("by") === "email";
  if (emailOnly) return redirect(request.url);
  const outcome =
    submission.value.intent === "password"
      ? await reauthenticateWithPassword(request, session, submission.value.password)
      : await reauthenticateWithCode(request, session, submission.value.code);
  if (outcome === "ok") return redirect(redirectTo);
  const message: { formErrors?: string[]; fieldErrors?: Record<string, string[]> } =
    outcome === "throttled"
      ? { formErrors: [REAUTHENTICATION_THROTTLED_MESSAGE] }
      : submission.value.intent === "password"
        ? { fieldErrors: { password: [WRONG_PASSWORD_MESSAGE] } }
        : { fieldErrors: { code: [INVALID_CODE_MESSAGE] } };
  return data(
    { intent, result: submission.reply({ ...message, hideFields: ["password"] }), sent: false },
    { status: outcome === "throttled" ? 429 : 400 },
  );
}

function PasswordForm({ redirectTo }: { redirectTo: string }) {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "reauthenticate-password",
    lastResult: actionData?.intent === "password" ? actionData.result : null,
    constraint: getFormConstraint(PasswordReauthenticationSchema),
    // The field takes focus; checked on blur, leaving it for a link below would move the link under the tap.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) =>
      parseWithZod(formData, { schema: PasswordReauthenticationSchema }),
  });
  return (
    <Form method="post" className="space-y-5" {...getFormProps(form)}>
      <CsrfInput />
      <input type="hidden" name="intent" value="password" />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <FormAlert errors={form.errors} />
      <Field
        label="Password"
        inputProps={{
          ...getInputProps(fields.password, { type: "password" }),
          autoComplete: "current-password",
          // The one thing this page asks for: the cursor waits in it.
          autoFocus: true,
        }}
        errors={fields.password.errors}
      />
      <SubmitButton pendingText="Checking...">Confirm with password</SubmitButton>
    </Form>
  );
}

/** The code field takes the focus unless the password form sits above it. */
function CodeForm({ redirectTo, autoFocus }: { redirectTo: string; autoFocus: boolean }) {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "reauthenticate-code",
    lastResult: actionData?.intent === "code" ? actionData.result : null,
    constraint: getFormConstraint(CodeReauthenticationSchema),
    // The code field takes focus; checked on blur, leaving it would move the buttons under the tap.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CodeReauthenticationSchema }),
  });
  return (
    <Form method="post" className="space-y-5" {...getFormProps(form)}>
      <CsrfInput />
      <input type="hidden" name="intent" value="code" />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <FormAlert errors={form.errors} />
      <OneTimeCodeField
        label="Code"
        hint="From your authenticator app, or a recovery code"
        inputProps={getInputProps(fields.code, { type: "text" })}
        errors={fields.code.errors}
        acceptsRecoveryCode
        autoFocus={autoFocus}
      />
      <SubmitButton pendingText="Checking...">Confirm with code</SubmitButton>
    </Form>
  );
}

function EmailForm({ redirectTo, primary }: { redirectTo: string; primary: boolean }) {
  const actionData = useActionData<typeof action>();
  const errors =
    actionData?.intent === "email" && actionData.result?.error
      ? (actionData.result.error[""] ?? null)
      : null;
  return (
    <Form method="post" className="stack-y-3">
      <CsrfInput />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <FormAlert errors={errors} />
      <SubmitButton
        pendingText="Sending..."
        intent="email"
        className={primary ? "btn-primary w-full" : "btn-secondary w-full"}
      >
        E-mail me a link
      </SubmitButton>
    </Form>
  );
}

export default function Reauthenticate() {
  const state = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const footer = (
    <p>
      Changed your mind?{" "}
      <Link to="/profile" className={authLinkClass}>
        Back to Profile Settings
      </Link>
    </p>
  );
  if (actionData?.sent) {
    return (
      <AuthCard
        title="Check your e-mail"
        description={
          <p role="status">
            We sent a link to {state.email}. Open it in this browser within 15 minutes to go on.
          </p>
        }
        footer={footer}
      >
        <AuthNotice>No e-mail? Look in your spam folder, or send another link below.</AuthNotice>
        <div className="mt-4">
          <EmailForm redirectTo={state.redirectTo} primary={false} />
        </div>
      </AuthCard>
    );
  }
  const onlyEmail = !state.password && !state.code;
  return (
    <AuthCard
      title={state.change ? `Confirm it's you to ${state.change}` : "Confirm it's you"}
      description={
        <p>
          {state.emailOnly
            ? "An admin account's first second factor is confirmed from its own mailbox: we e-mail you a link."
            : "This change needs proof that it is really you, asked again every 10 minutes."}
        </p>
      }
      footer={footer}
    >
      <div className="space-y-6">
        {state.password ? <PasswordForm redirectTo={state.redirectTo} /> : null}
        {state.code ? <CodeForm redirectTo={state.redirectTo} autoFocus={!state.password} /> : null}
        {state.passkey ? <PasskeyReauthenticateButton redirectTo={state.redirectTo} /> : null}
        <EmailForm redirectTo={state.redirectTo} primary={onlyEmail} />
      </div>
    </AuthCard>
  );
}
