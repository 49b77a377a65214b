import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/layout/app-shell";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import {
  API_TOKEN_LIFETIMES_DAYS,
  DEFAULT_API_TOKEN_LIFETIME_DAYS,
  TokenLifetimeSchema,
} from "~/modules/api/api-token-validation";
import { createApiToken } from "~/modules/api/api-tokens.server";
import {
  EXTENSION_TOKEN_NAME,
  ExtensionConnectSchema,
  extensionFinishUrl,
} from "~/modules/api/extension-connect";
import { noticeCredentialChange } from "~/modules/auth/credential-notices.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireReauthenticatedUser } from "~/modules/auth/reauthentication.server";
import { invariantResponse, RuleError } from "~/platform/errors.server";

/**
 * "Connect" for the Chrome extension: with the user's consent, a write token
 * for it, handed over through a link to the extension's own page. The
 * extension never reads the app's cookies. Minting a token asks for a session
 * that proved who it is just now (docs/decisions/0107-reauthentication-window.md),
 * and the token expires like any other.
 */
export const meta: MetaFunction = () => [{ title: "Connect the extension · Thoughtfully" }];

function parseRequest(values: Record<string, unknown>) {
  const parsed = ExtensionConnectSchema.safeParse(values);
  invariantResponse(parsed.success, "Bad Request", 400);
  return parsed.data;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireReauthenticatedUser(request);
  const connect = parseRequest(Object.fromEntries(new URL(request.url).searchParams));
  return { ...connect, email: user.email };
}

const ConnectFormSchema = ExtensionConnectSchema.extend({ expiresInDays: TokenLifetimeSchema });

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readProtectedForm(request), { schema: ConnectFormSchema });
  // Only a page of ours posts here, with a valid request and an offered lifetime.
  invariantResponse(submission.status === "success", "Bad Request", 400);
  const { expiresInDays, ...connect } = submission.value;
  const { user } = await requireReauthenticatedUser(request, {
    redirectTo: `/extension/connect?${new URLSearchParams(connect)}`,
  });
  try {
    const { id, token } = createApiToken(user.id, {
      name: EXTENSION_TOKEN_NAME,
      scope: "write",
      expiresInDays,
    });
    await noticeCredentialChange(request, user, {
      kind: "api-token-created",
      name: EXTENSION_TOKEN_NAME,
      credential: String(id),
    });
    return data(
      { finishUrl: extensionFinishUrl(connect.return, connect.state, token), error: null },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return data({ finishUrl: null, error: error.message }, { status: 403 });
  }
}

export default function ConnectExtension() {
  const connect = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <AppShell>
      <section className="mx-auto max-w-xl px-4 py-12">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">
          Connect the Chrome extension
        </h1>
        {result?.finishUrl ? (
          <>
            <p className="mt-4 text-stone-700">
              The extension has its token. One last step hands it over:
            </p>
            <a href={result.finishUrl} className="btn-primary mt-6">
              Finish in the extension
            </a>
          </>
        ) : (
          <>
            <p className="mt-4 text-stone-700">
              The Thoughtfully extension asks to save pages into your folders as {connect.email}. It
              will be able to see your folders and add to them. You can revoke its access at any
              time under Profile Settings → API tokens.
            </p>
            <FormAlert errors={result?.error ? [result.error] : null} />
            <Form method="post" className="mt-6 flex flex-wrap gap-2">
              <CsrfInput />
              <input type="hidden" name="return" value={connect.return} />
              <input type="hidden" name="state" value={connect.state} />
              <label
                htmlFor="expires-in-days"
                className="w-full text-sm font-medium text-stone-800"
              >
                Its access expires after
                <select
                  id="expires-in-days"
                  name="expiresInDays"
                  defaultValue={DEFAULT_API_TOKEN_LIFETIME_DAYS}
                  className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900"
                >
                  {API_TOKEN_LIFETIMES_DAYS.map((days) => (
                    <option key={days} value={days}>
                      {days === 365 ? "1 year (the longest)" : `${days} days`}
                    </option>
                  ))}
                </select>
              </label>
              <SubmitButton pendingText="Connecting..." className="btn-primary">
                Connect extension
              </SubmitButton>
              <Link to="/" className="btn-secondary">
                Not now
              </Link>
            </Form>
          </>
        )}
      </section>
    </AppShell>
  );
}
