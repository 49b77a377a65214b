import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard } from "~/components/auth/auth-card";
import {
  PressToConfirmForm,
  RecipientChoiceDone,
  RecipientLinkProblem,
  recipientPageHeaders,
  recipientPageMeta,
} from "~/components/recipients/recipient-page";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { refuseResubscribeRequests } from "~/modules/recipients/opt-outs.server";
import { readDontAskAgainLink } from "~/modules/recipients/recipient-links.server";

/**
 * /dont-ask-again?email=&token= — the "Don't ask me again" link of a
 * re-subscription request. Opening it changes nothing (mail scanners follow
 * links); the button does: from then on no sender may ask the address to
 * re-subscribe (docs/decisions/0043-re-subscribe-requests.md).
 */
const INVALID = "Invalid link";

export const meta = recipientPageMeta("Don't ask me again");
export const headers = recipientPageHeaders;

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
      <RecipientLinkProblem
        title="Don't ask me again"
        alert={INVALID}
        explanation="Please use the link from the invitation e-mail, exactly as it is."
      />
    );
  }
  const { email, token } = loaderData;

  if (actionData?.state === "done") {
    return (
      <RecipientChoiceDone
        title="We won't ask again"
        description={
          <p role="status">
            {`No one using Thoughtfully can ask ${email} to re-subscribe any more. You stay unsubscribed.`}
          </p>
        }
      />
    );
  }

  return (
    <AuthCard
      forRecipient
      title="Don't ask me again"
      description={
        <p>{`Stop every request to re-subscribe ${email}, from any sender using Thoughtfully.`}</p>
      }
    >
      <PressToConfirmForm
        fields={{ email, token }}
        label="Don't ask me again"
        pendingText="Saving..."
      />
    </AuthCard>
  );
}
