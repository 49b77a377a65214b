import {
  type ActionFunctionArgs,
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard } from "~/components/auth-card";
import { CsrfInput, SubmitButton } from "~/components/forms";
import { readProtectedForm } from "~/utils/csrf.server";
import { readDontAskAgainLink } from "~/utils/recipient-links.server";
import { refuseResubscribeRequests } from "~/utils/recipients.server";

/**
 * /dont-ask-again?email=&token= — the "Don't ask me again" link of a
 * re-subscription request. Opening it changes nothing (mail scanners follow
 * links); the button does: from then on no sender may ask the address to
 * re-subscribe (docs/decisions.md, "Re-subscribe requests").
 */
const INVALID = "Invalid link";

export const meta: MetaFunction = () => [
  { title: "Don't ask me again · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export const headers: HeadersFunction = ({ parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  headers.set("Cache-Control", "no-store");
  return headers;
};

export async function loader({ request }: LoaderFunctionArgs) {
  const link = readDontAskAgainLink(new URL(request.url).searchParams);
  if (!link) return data({ state: "error" as const }, { status: 400 });
  return data({ state: "ready" as const, ...link });
}

export async function action({ request }: ActionFunctionArgs) {
  const link = readDontAskAgainLink(await readProtectedForm(request));
  if (!link) return data({ state: "error" as const }, { status: 400 });
  refuseResubscribeRequests(link.email);
  return data({ state: "done" as const });
}

export default function DontAskAgainPage() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();

  if (loaderData.state === "error" || actionData?.state === "error") {
    return (
      <AuthCard title="Don't ask me again" description={<p role="alert">{INVALID}</p>}>
        <p className="text-sm text-stone-700">
          Please use the link from the invitation e-mail, exactly as it is.
        </p>
        <Link to="/" className="btn-secondary mt-5 w-full">
          Go to Thoughtfully
        </Link>
      </AuthCard>
    );
  }
  const { email, token } = loaderData;

  if (actionData?.state === "done") {
    return (
      <AuthCard
        title="We won't ask again"
        description={
          <p role="status">
            {`No one using Thoughtfully can ask ${email} to re-subscribe any more. You stay unsubscribed.`}
          </p>
        }
      >
        <Link to="/" className="btn-secondary w-full">
          Go to Thoughtfully
        </Link>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Don't ask me again"
      description={
        <p>{`Stop every request to re-subscribe ${email}, from any sender using Thoughtfully.`}</p>
      }
    >
      {/* Never submitted by script: a link scanner that runs the page must not decide for anyone. */}
      <Form method="post">
        <CsrfInput />
        <input type="hidden" name="email" value={email} />
        <input type="hidden" name="token" value={token} />
        <SubmitButton pendingText="Saving...">Don't ask me again</SubmitButton>
      </Form>
      <p className="mt-3 text-center text-sm text-stone-600">
        Nothing changes unless you press the button.
      </p>
    </AuthCard>
  );
}
