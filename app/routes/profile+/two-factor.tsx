import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { useHydrated } from "remix-utils/use-hydrated";
import { OneTimeCodeField } from "~/components/auth/one-time-code-field";
import { CopyButton } from "~/components/ui/copy-button";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { isAdmin } from "~/modules/auth/roles.server";
import { requireUser } from "~/modules/auth/session.server";
import {
  enrolmentQrCode,
  enrolmentUri,
  INVALID_CODE_MESSAGE,
  SECOND_FACTOR_THROTTLED_MESSAGE,
  twoFactorState,
} from "~/modules/auth/two-factor.server";
import {
  changeTwoFactorSettings,
  requireTwoFactorSetUpProof,
} from "~/modules/auth/two-factor-settings.server";
import { TwoFactorCodeSchema, TwoFactorSettingsSchema } from "~/modules/auth/two-factor-validation";
import { getFormConstraint } from "~/platform/form-constraint";
import { parseIntentForm } from "~/platform/intent.server";
import { redirectWithToast } from "~/platform/toast.server";
import type { loader as rootLoader } from "~/root";

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
    const otpauthUri = enrolmentUri(state.secret, user.email);
    return {
      status: "pending" as const,
      admin,
      secret: state.secret,
      otpauthUri,
      qrCode: await enrolmentQrCode(otpauthUri),
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
  autoFocus = true,
}: {
  intent: "confirm" | "disable" | "new-recovery-codes";
  label: string;
  hint: string;
  submit: string;
  pending: string;
  autoFocus?: boolean;
}) {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: `two-factor-${intent}`,
    // Each form shows only the answer to itself.
    lastResult: actionData?.intent === intent ? actionData.result : null,
    constraint: getFormConstraint(TwoFactorCodeSchema),
    // The code field takes focus; checked on blur, leaving it would move the buttons under the tap.
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TwoFactorCodeSchema }),
  });
  return (
    <Form method="post" {...getFormProps(form)} className="stack-y-4">
      <CsrfInput />
      <input type="hidden" name="intent" value={intent} />
      <FormAlert errors={form.errors} />
      <OneTimeCodeField
        label={label}
        hint={hint}
        inputProps={getInputProps(fields.code, { type: "text" })}
        errors={fields.code.errors}
        // Set-up's first code can only come from the app; the others may be recovery codes.
        acceptsRecoveryCode={intent !== "confirm"}
        autoFocus={autoFocus}
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

/**
 * The set-up key in groups of four, as authenticator apps show it: each group
 * is a flex item, so a line breaks only between groups, and no space is in
 * the text, so copying it gives the key as the app expects it.
 */
function KeyInGroups({ secret }: { secret: string }) {
  return (
    <code
      data-testid="totp-secret"
      className="flex select-all flex-wrap gap-x-2 font-mono text-base text-stone-900"
    >
      {secret.match(/.{1,4}/g)?.map((group, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a group's place in the key is what it is
        <span key={index}>{group}</span>
      ))}
    </code>
  );
}

/** The recovery codes as a text file: what Download saves and Copy copies. */
function recoveryCodesText(codes: string[], email: string) {
  return [
    `Thoughtfully recovery codes for ${email}`,
    "Each code lets you log in once without your authenticator app.",
    "",
    ...codes,
    "",
  ].join("\n");
}

/**
 * Shown once. Download is a link to a `data:` URL made with the page, so it
 * works without JavaScript and without the server keeping the codes (only
 * their hashes are kept); Copy and Print need JavaScript, and without it the
 * page says to use the browser's Print
 * (docs/decisions/0130-set-ups-on-one-phone.md).
 */
function RecoveryCodes({ codes }: { codes: string[] }) {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const hydrated = useHydrated();
  const text = recoveryCodesText(codes, root?.user?.email ?? "your account");
  return (
    <Dialog title="Your recovery codes" closeTo="/profile">
      <p className="text-sm text-stone-700">
        Keep these somewhere safe: each one lets you log in once without your authenticator app.
        They are shown only this once.
      </p>
      <ul
        aria-label="Recovery codes"
        className="mt-4 grid select-all grid-cols-2 gap-2 rounded-lg bg-stone-50 p-4 font-mono text-sm"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="mt-4 flex flex-wrap items-center gap-2 print:hidden">
        <a
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
          download="thoughtfully-recovery-codes.txt"
          className="btn-secondary"
        >
          Download
        </a>
        <CopyButton text={text} label="Copy" />
        {hydrated ? (
          <button type="button" onClick={() => window.print()} className="btn-secondary">
            Print
          </button>
        ) : (
          <p className="text-sm text-stone-600">To print them, use your browser's Print.</p>
        )}
      </div>
      <div className="mt-6 flex justify-end print:hidden">
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
              autoFocus={false}
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
            Add this account to an authenticator app (1Password, Google Authenticator, Authy…): on
            the phone that has the app, tap Add to authenticator; on another device, scan the QR
            code with the phone.
            {/* The link opens the app on this phone, where the QR code cannot be scanned. */}
            <div className="mt-2 flex flex-wrap items-center gap-4">
              <a href={state.otpauthUri} className="btn-primary">
                Add to authenticator
              </a>
              <img
                src={state.qrCode}
                alt="QR code for your authenticator app"
                width={180}
                height={180}
              />
            </div>
          </li>
          <li>
            Or type this key into the app:
            <div className="mt-1 flex flex-wrap items-center gap-x-4 gap-y-2">
              <KeyInGroups secret={state.secret} />
              <CopyButton text={state.secret} label="Copy key" />
            </div>
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
