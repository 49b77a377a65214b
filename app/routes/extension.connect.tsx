import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/app-shell";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/forms";
import { requireUser } from "~/modules/accounts/session.server";
import { createApiToken } from "~/modules/api/api-tokens.server";
import {
  EXTENSION_TOKEN_NAME,
  ExtensionConnectSchema,
  extensionFinishUrl,
} from "~/modules/api/extension-connect";
import { readProtectedForm } from "~/platform/csrf.server";
import { invariantResponse, RuleError } from "~/platform/errors.server";

/**
 * "Connect" for the Chrome extension: with the user's consent, a write token
 * for it, handed over through a link to the extension's own page. The
 * extension never reads the app's cookies.
 */
export const meta: MetaFunction = () => [{ title: "Connect the extension · Thoughtfully" }];

function parseRequest(values: Record<string, unknown>) {
  const parsed = ExtensionConnectSchema.safeParse(values);
  invariantResponse(parsed.success, "Bad Request", 400);
  return parsed.data;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const connect = parseRequest(Object.fromEntries(new URL(request.url).searchParams));
  return { ...connect, email: user.email };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readProtectedForm(request);
  const connect = parseRequest(Object.fromEntries(formData));
  try {
    const { token } = createApiToken(user.id, { name: EXTENSION_TOKEN_NAME, scope: "write" });
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
