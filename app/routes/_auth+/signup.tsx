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
import { useEffect, useState } from "react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import { signUp } from "~/modules/accounts/accounts.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireAnonymous } from "~/modules/auth/session.server";
import { signUpProofCookie } from "~/modules/auth/sign-up-proof.server";
import { PASSWORD_RULE, SignupSchema } from "~/modules/auth/user-validation";
import { deviceTimeZone } from "~/platform/dates";
import { getFormConstraint } from "~/platform/form-constraint";
import { refuseMailBurst } from "~/platform/mail-limits.server";

export const meta: MetaFunction = () => [
  { title: "Create your account · Thoughtfully" },
  {
    name: "description",
    content: "Create a free Thoughtfully account: save now, send later.",
  },
];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  return data({ ref: new URL(request.url).searchParams.get("ref") });
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: SignupSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  const refused = await refuseMailBurst("sign-up", request, submission.value.email);
  if (refused) {
    return data(
      { result: submission.reply({ formErrors: [refused], hideFields: ["password"] }) },
      { status: 429 },
    );
  }
  const createdUserId = await signUp(submission.value);
  throw redirect("/check-email", {
    headers: { "Set-Cookie": await signUpProofCookie(submission.value.email, createdUserId) },
  });
}

export default function SignupPage() {
  const { ref } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "signup",
    lastResult: actionData?.result,
    constraint: getFormConstraint(SignupSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SignupSchema }),
  });
  // Filled with the browser's zone once JavaScript runs. Left empty without it, and
  // the server then stores UTC (an unknown zone too); the profile page can change it.
  const [timeZone, setTimeZone] = useState("");
  useEffect(() => {
    const detected = deviceTimeZone();
    if (detected) setTimeZone(detected);
  }, []);

  return (
    <AuthCard
      title="Create your account"
      description={<p>Save links, photos, files and notes now, and send them later.</p>}
      footer={
        <p>
          Already have an account?{" "}
          <Link to="/login" className={authLinkClass}>
            Log In
          </Link>
        </p>
      }
    >
      <Form method="post" className="space-y-5" {...getFormProps(form)}>
        <CsrfInput />
        <input type="hidden" name="ref" value={ref ?? ""} />
        <input type="hidden" name="timeZone" value={timeZone} />
        <FormAlert errors={form.errors} />
        <div className="grid gap-5 sm:grid-cols-2">
          <Field
            label="First name"
            inputProps={{
              ...getInputProps(fields.firstName, { type: "text" }),
              autoComplete: "given-name",
            }}
            errors={fields.firstName.errors}
          />
          <Field
            label="Last name"
            inputProps={{
              ...getInputProps(fields.lastName, { type: "text" }),
              autoComplete: "family-name",
            }}
            errors={fields.lastName.errors}
          />
        </div>
        <Field
          label="Email"
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: "email",
          }}
          errors={fields.email.errors}
        />
        <Field
          label="Password"
          // The rule is the error's own words, so it is said once: by the error when there is one.
          hint={fields.password.errors?.length ? undefined : PASSWORD_RULE}
          inputProps={{
            ...getInputProps(fields.password, { type: "password" }),
            autoComplete: "new-password",
          }}
          errors={fields.password.errors}
        />
        <SubmitButton pendingText="Creating Account...">Create Account</SubmitButton>
      </Form>
    </AuthCard>
  );
}
