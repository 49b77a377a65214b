import { getFormProps, getInputProps, getSelectProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { CopyButton } from "~/components/ui/copy-button";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, ErrorList, Field, FormAlert, SubmitButton } from "~/components/ui/forms";
import {
  API_TOKEN_LIFETIMES_DAYS,
  ApiTokenSchema,
  DEFAULT_API_TOKEN_LIFETIME_DAYS,
  DEFAULT_API_TOKEN_SCOPE,
} from "~/modules/api/api-token-validation";
import { createApiToken, revokeApiToken } from "~/modules/api/api-tokens.server";
import { noticeCredentialChange } from "~/modules/auth/credential-notices.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireReauthenticatedUser } from "~/modules/auth/reauthentication.server";
import { requireUser } from "~/modules/auth/session.server";
import { formatDay } from "~/platform/dates";
import { RuleError } from "~/platform/errors.server";
import { getFormConstraint } from "~/platform/form-constraint";
import { parseIntentForm } from "~/platform/intent.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * New API token (a dialog over Profile Settings), and revoking one from the
 * profile's list. A new token is shown once, in the answer to the form that
 * created it; only its hash is kept. Creating one asks for a session that
 * proved who it is just now, so the dialog asks before anything is typed
 * (docs/decisions/0107-reauthentication-window.md); the owner is told of
 * each token made or revoked.
 */
export const meta: MetaFunction = () => [{ title: "New API token · Thoughtfully" }];

/** The dialog's form, and each token's Revoke button on Profile Settings. */
const TokenActionSchema = z.discriminatedUnion("intent", [
  ApiTokenSchema.extend({ intent: z.literal("create") }),
  z.object({ intent: z.literal("revoke"), tokenId: z.coerce.number().int() }),
]);

const TOKEN_FORM_PATH = "/profile/tokens";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireReauthenticatedUser(request, { redirectTo: TOKEN_FORM_PATH });
  return null;
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const submission = parseIntentForm(await readProtectedForm(request), TokenActionSchema);
  if (submission.status !== "success") {
    return data({ result: submission.reply(), created: null }, { status: 400 });
  }
  if (submission.value.intent === "revoke") {
    const revokedName = revokeApiToken(user.id, submission.value.tokenId);
    const revoked = revokedName !== null;
    if (revoked) {
      await noticeCredentialChange(request, user, { kind: "api-token-revoked", name: revokedName });
    }
    return redirectWithToast("/profile", {
      title: revoked ? "Token revoked" : "That token was already revoked",
      description: revoked ? "Programs using it can no longer reach your account." : undefined,
    });
  }
  await requireReauthenticatedUser(request, { redirectTo: TOKEN_FORM_PATH });
  const { name, scope, expiresInDays } = submission.value;
  try {
    const { id, token, expiresAt } = createApiToken(user.id, { name, scope, expiresInDays });
    await noticeCredentialChange(request, user, {
      kind: "api-token-created",
      name,
      credential: String(id),
    });
    const expires = formatDay(expiresAt, user.timeZone);
    return data(
      { result: null, created: { token, name, scope, expires } },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return data(
      { result: submission.reply({ formErrors: [error.message] }), created: null },
      { status: 403 },
    );
  }
}

export default function NewApiToken() {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "new-api-token",
    lastResult: actionData?.result,
    defaultValue: {
      scope: DEFAULT_API_TOKEN_SCOPE,
      expiresInDays: String(DEFAULT_API_TOKEN_LIFETIME_DAYS),
    },
    constraint: getFormConstraint(ApiTokenSchema),
    shouldValidate: "onBlur",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ApiTokenSchema }),
  });
  const created = actionData?.created;
  if (created) {
    return (
      <Dialog title="Your new API token" closeTo="/profile">
        <p className="text-sm text-stone-700">
          Copy it now: it is shown only this once. Anyone holding it can{" "}
          {created.scope === "write" ? "read and change" : "read"} your folders. It expires on{" "}
          {created.expires}.
        </p>
        <label htmlFor="new-token" className="mt-4 block text-sm font-medium text-stone-800">
          {created.name} ({created.scope})
        </label>
        {/* A textarea, not an input: the whole token shows on a phone, wrapped, and one tap
            selects all of it for copying without JavaScript. */}
        <textarea
          id="new-token"
          readOnly
          rows={2}
          value={created.token}
          className="mt-1 block w-full select-all resize-none break-all rounded-lg border border-stone-300 bg-stone-50 px-3 py-2 font-mono text-sm"
        />
        <div className="mt-2">
          <CopyButton text={created.token} label="Copy token" />
        </div>
        <div className="mt-6 flex justify-end">
          <Link to="/profile" className="btn-primary" preventScrollReset>
            Done
          </Link>
        </div>
      </Dialog>
    );
  }
  const scopeProps = getSelectProps(fields.scope);
  const lifetimeProps = getSelectProps(fields.expiresInDays);
  return (
    <Dialog title="New API token" closeTo="/profile">
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="create" />
        <FormAlert errors={form.errors} />
        <Field
          label="Name"
          hint="What will use it, e.g. “Phone shortcut”"
          inputProps={getInputProps(fields.name, { type: "text" })}
          errors={fields.name.errors}
        />
        <div>
          <label htmlFor={scopeProps.id} className="block text-sm font-medium text-stone-800">
            Access
          </label>
          <select
            {...scopeProps}
            key={scopeProps.key}
            className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
          >
            <option value="read">Read: see folders and items</option>
            <option value="write">Write: also add, change and send</option>
          </select>
          <ErrorList errors={fields.scope.errors} />
        </div>
        <div>
          <label htmlFor={lifetimeProps.id} className="block text-sm font-medium text-stone-800">
            Expires after
          </label>
          <select
            {...lifetimeProps}
            key={lifetimeProps.key}
            className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
          >
            {API_TOKEN_LIFETIMES_DAYS.map((days) => (
              <option key={days} value={days}>
                {days === 365 ? "1 year (the longest)" : `${days} days`}
                {days === DEFAULT_API_TOKEN_LIFETIME_DAYS ? " (recommended)" : ""}
              </option>
            ))}
          </select>
          <ErrorList errors={fields.expiresInDays.errors} />
        </div>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Link to="/profile" className="btn-secondary" preventScrollReset>
            Cancel
          </Link>
          <SubmitButton pendingText="Creating..." className="btn-primary">
            Create token
          </SubmitButton>
        </div>
      </Form>
    </Dialog>
  );
}
