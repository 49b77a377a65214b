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
import { PasskeySignInButton } from "~/components/auth/passkey-buttons";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import { authenticator, LoginError, oauthConfigured } from "~/modules/auth/auth.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { getUser } from "~/modules/auth/session.server";
import { continueSignIn } from "~/modules/auth/two-factor-login.server";
import { LoginSchema } from "~/modules/auth/user-validation";
import { env } from "~/platform/env.server";
import { getFormConstraint } from "~/platform/form-constraint";
import { safeRedirectPath } from "~/platform/redirect";

export const meta: MetaFunction = () => [
  { title: "Log In · Thoughtfully" },
  { name: "description", content: "Log in to Thoughtfully to save and send your folders." },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const redirectTo = url.searchParams.get("redirectTo");
  if (await getUser(request)) throw redirect(safeRedirectPath(redirectTo));
  return data({
    reason: url.searchParams.get("reason"),
    redirectTo,
    oauthName: oauthConfigured ? env.OAUTH_PROVIDER_NAME : null,
  });
}

export async function action({ request }: ActionFunctionArgs) {
  // remix-auth's FormStrategy reads the body itself, so the CSRF check reads a copy.
  const formData = await readProtectedForm(request.clone());
  const submission = parseWithZod(formData, { schema: LoginSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  let user: Awaited<ReturnType<typeof authenticator.authenticate>>;
  try {
    user = await authenticator.authenticate("password", request);
  } catch (error) {
    if (error instanceof LoginError) {
      // The same answer for an unknown e-mail and a wrong password.
      return data(
        { result: submission.reply({ formErrors: [error.message], hideFields: ["password"] }) },
        { status: 400 },
      );
    }
    throw error;
  }
  throw await continueSignIn(request, user, submission.value.redirectTo, "password");
}

export default function LoginPage() {
  const { reason, redirectTo, oauthName } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "login",
    lastResult: actionData?.result,
    constraint: getFormConstraint(LoginSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LoginSchema }),
  });

  return (
    <AuthCard
      title="Log In"
      description={<p>Welcome back. Log in to keep saving things to share.</p>}
      footer={
        <p>
          Don't have an account?{" "}
          <Link to="/signup" className={authLinkClass}>
            Sign up
          </Link>
        </p>
      }
    >
      {reason === "session_expired" ? (
        <AuthNotice>Your session has expired. Please log in again.</AuthNotice>
      ) : null}
      <Form method="post" className="space-y-5" {...getFormProps(form)}>
        <CsrfInput />
        <input type="hidden" name="redirectTo" value={redirectTo ?? ""} />
        <FormAlert errors={form.errors} />
        <Field
          label="Email"
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: "email",
          }}
          errors={fields.email.errors}
        />
        <div>
          <Field
            label="Password"
            inputProps={{
              ...getInputProps(fields.password, { type: "password" }),
              autoComplete: "current-password",
            }}
            errors={fields.password.errors}
          />
          <p className="mt-2 text-right text-sm">
            <Link
              to="/forgot-password"
              className={`${authLinkClass} inline-flex min-h-11 items-center`}
            >
              Forgot password
            </Link>
          </p>
        </div>
        <SubmitButton pendingText="Logging in...">Log In</SubmitButton>
      </Form>
      <div className="mt-3">
        <PasskeySignInButton redirectTo={redirectTo} />
      </div>

      {oauthName ? (
        <>
          <div className="my-6 flex items-center gap-3 text-xs uppercase tracking-wide text-stone-600">
            <span aria-hidden="true" className="h-px flex-1 bg-stone-200" />
            or
            <span aria-hidden="true" className="h-px flex-1 bg-stone-200" />
          </div>
          {/* A full page POST: the answer is a redirect to the provider's site. */}
          <Form method="post" action="/auth/oauth" reloadDocument>
            <CsrfInput />
            <button type="submit" className="btn-secondary w-full">
              Continue with {oauthName}
            </button>
          </Form>
        </>
      ) : null}
    </AuthCard>
  );
}
