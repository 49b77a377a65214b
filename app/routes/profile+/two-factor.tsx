import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { Dialog } from "~/components/dialog";
import { CsrfInput, Field, FormAlert, SubmitButton } from "~/components/forms";
import { isAdmin } from "~/modules/accounts/roles.server";
import { requireUser } from "~/modules/accounts/session.server";
import {
  enrolmentQrCode,
  INVALID_CODE_MESSAGE,
  SECOND_FACTOR_THROTTLED_MESSAGE,
  twoFactorState,
} from "~/modules/accounts/two-factor.server";
import {
  changeTwoFactorSettings,
  requireTwoFactorSetUpProof,
} from "~/modules/accounts/two-factor-settings.server";
import {
  TwoFactorCodeSchema,
  TwoFactorSettingsSchema,
} from "~/modules/accounts/two-factor-validation";
import { readProtectedForm } from "~/platform/csrf.server";
import { parseIntentForm } from "~/platform/intent.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * Two-factor sign-in from Profile Settings (a dialog over it): set up with a
 * QR code and the secret as text, confirmed by a first code; new recovery
 * codes; turning it off. Setting up asks for a session that proved who it
 * is just now (by e-mail for an admin's first second factor); new codes and
 * turning off ask for a current code, which is that proof. The owner is told
 * of each change. Recovery codes are shown once, in the answer to the form
 * that made them. docs/decisions/0107-reauthentication-window.md.
 */
export const meta: MetaFunction = () => [{ title: "Two-factor sign-in · Thoughtfully" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const state = twoFactorState(user.id);
  if (state.status !== "on") await requireTwoFactorSetUpProof(request, user.id);
  const admin = isAdmin(user.id);
  if (state.status === "pending") {
    return {
      status: "pending" as const,
      admin,
      secret: state.secret,
      qrCode: await enrolmentQrCode(state.secret, user.email),
    };
  }
  if (state.status === "on") {
    return { status: "on" as const, admin, recoveryCodesLeft: state.recoveryCodesLeft };
  }
  return { status: "off" as const, admin };
}

const noStore = { "Cache-Control": "no-store" };

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const submission = parseIntentForm(await readProtectedForm(request), TwoFactorSettingsSchema);
  if (submission.status !== "success") {
    return data(
      { result: submission.reply(), intent: submission.payload.intent, recoveryCodes: null },
      { status: 400 },
    );
  }
  const { intent } = submission.value;
  const change = await changeTwoFactorSettings(request, user, submission.value);
  switch (change.outcome) {
    case "started":
      return redirect("/profile/two-factor");
    case "throttled":
      return data(
        {
          result: submission.reply({ formErrors: [SECOND_FACTOR_THROTTLED_MESSAGE] }),
          intent,
          recoveryCodes: null,
        },
        { status: 429 },
      );
    case "wrong-code":
      return data(
        {
          result: submission.reply({ fieldErrors: { code: [INVALID_CODE_MESSAGE] } }),
          intent,
          recoveryCodes: null,
        },
        { status: 400 },
      );
    case "recovery-codes":
      return data(
        { result: null, intent, recoveryCodes: change.recoveryCodes },
        { headers: noStore },
      );
    case "turned-off":
      return redirectWithToast("/profile", {
        title: "Two-factor sign-in is off",
        description: "Log-ins now ask only for your password.",
      });
  }
}

function CodeForm({
  intent,
  label,
  hint,
  submit,
  pending,
}: {
  intent: "confirm" | "disable" | "new-recovery-codes";
  label: string;
  hint: string;
  submit: string;
  pending: string;
}) {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `two-factor-${intent}`,
    // Each form shows only the answer to itself.
    lastResult: actionData?.intent === intent ? actionData.result : null,
    constraint: getZodConstraint(TwoFactorCodeSchema),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TwoFactorCodeSchema }),
  });
  return (
    <Form method="post" {...getFormProps(form)} className="space-y-4">
      <CsrfInput />
      <input type="hidden" name="intent" value={intent} />
      <FormAlert errors={form.errors} />
      <Field
        label={label}
        hint={hint}
        inputProps={{
          ...getInputProps(fields.code, { type: "text" }),
          autoComplete: "one-time-code",
          spellCheck: false,
        }}
        errors={fields.code.errors}
      />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to="/profile" className="btn-secondary" preventScrollReset>
          Cancel
        </Link>
        <SubmitButton pendingText={pending} className="btn-primary">
          {submit}
        </SubmitButton>
      </div>
    </Form>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <Dialog title="Your recovery codes" closeTo="/profile">
      <p className="text-sm text-stone-700">
        Keep these somewhere safe: each one lets you log in once without your authenticator app.
        They are shown only this once.
      </p>
      <ul
        aria-label="Recovery codes"
        className="mt-4 grid grid-cols-2 gap-2 rounded-lg bg-stone-50 p-4 font-mono text-sm"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="mt-6 flex justify-end">
        <Link to="/profile" className="btn-primary" preventScrollReset>
          Done
        </Link>
      </div>
    </Dialog>
  );
}

export default function TwoFactorSettings() {
  const state = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  if (actionData?.recoveryCodes) return <RecoveryCodes codes={actionData.recoveryCodes} />;

  if (state.status === "on") {
    return (
      <Dialog title="Two-factor sign-in" closeTo="/profile">
        <p className="text-sm text-stone-700">
          Two-factor sign-in is on. {state.recoveryCodesLeft} recovery codes left.
          {state.admin ? " As an admin you need it to open the admin pages." : ""}
        </p>
        <div className="mt-6 space-y-8">
          <section aria-labelledby="new-codes-heading">
            <h3 id="new-codes-heading" className="font-semibold text-stone-900">
              New recovery codes
            </h3>
            <CodeForm
              intent="new-recovery-codes"
              label="Code for new recovery codes"
              hint="A code from your authenticator app, or a recovery code. The old codes stop working."
              submit="Make new recovery codes"
              pending="Making codes..."
            />
          </section>
          <section aria-labelledby="turn-off-heading">
            <h3 id="turn-off-heading" className="font-semibold text-stone-900">
              Turn off
            </h3>
            <CodeForm
              intent="disable"
              label="Code to turn off"
              hint="A code from your authenticator app, or a recovery code."
              submit="Turn off two-factor sign-in"
              pending="Turning off..."
            />
          </section>
        </div>
      </Dialog>
    );
  }

  if (state.status === "pending") {
    return (
      <Dialog title="Set up two-factor sign-in" closeTo="/profile">
        <ol className="list-decimal space-y-3 pl-5 text-sm text-stone-700">
          <li>
            Scan this QR code with an authenticator app (1Password, Google Authenticator, Authy…).
            <img
              src={state.qrCode}
              alt="QR code for your authenticator app"
              width={180}
              height={180}
              className="mt-2"
            />
          </li>
          <li>
            Or type this key into the app:{" "}
            <code data-testid="totp-secret" className="break-all font-mono text-stone-900">
              {state.secret}
            </code>
          </li>
          <li>Enter the 6-digit code the app shows.</li>
        </ol>
        <div className="mt-4">
          <CodeForm
            intent="confirm"
            label="Code from the app"
            hint="6 digits"
            submit="Turn on"
            pending="Checking..."
          />
        </div>
      </Dialog>
    );
  }

  return (
    <Dialog title="Set up two-factor sign-in" closeTo="/profile">
      <p className="text-sm text-stone-700">
        Log-ins will ask for a code from an authenticator app on your phone as well as your
        password, so a stolen password alone cannot open your account.
        {state.admin ? " Admins need it to open the admin pages." : ""}
      </p>
      <Form method="post" className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <CsrfInput />
        <Link to="/profile" className="btn-secondary" preventScrollReset>
          Cancel
        </Link>
        <SubmitButton pendingText="Starting..." intent="start" className="btn-primary">
          Start set-up
        </SubmitButton>
      </Form>
    </Dialog>
  );
}
