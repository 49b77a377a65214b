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
import { resubscribe, UnknownFolderError } from "~/modules/recipients/opt-outs.server";
import {
  isValidResubscribeToken,
  readLinkParams,
} from "~/modules/recipients/recipient-links.server";
import { folderForRecipient } from "~/modules/recipients/recipients.server";
import { throwIfDatabaseBusy } from "~/platform/errors.server";

/**
 * /resubscribe?email=&folder=&token= — the link of the one e-mail a sender
 * can have sent to a recipient who unsubscribed. Opening it changes nothing
 * (mail scanners follow links, some run scripts); only a press of the
 * "Re-subscribe" button does (docs/decisions/0045-recipients-privacy.md).
 */
const INVALID = "Invalid re-subscription link";
const FAILED = "Failed to re-subscribe";

export const meta = recipientPageMeta("Re-subscribe");
export const headers = recipientPageHeaders;

function validLink(source: { get(name: string): unknown }) {
  const link = readLinkParams(source);
  return link && isValidResubscribeToken(link.email, link.folderId, link.token) ? link : null;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const link = validLink(new URL(request.url).searchParams);
  if (!link) return data({ state: "error" as const }, { status: 400 });
  const folder = folderForRecipient(link.folderId);
  if (!folder) return data({ state: "error" as const }, { status: 404 });
  return data({
    state: "ready" as const,
    ...link,
    folderName: folder.folderName,
    senderName: folder.senderName,
  });
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readProtectedForm(request);
  const link = validLink(form);
  if (!link) return data({ state: "error" as const }, { status: 400 });
  try {
    resubscribe(link.folderId, link.email);
  } catch (error) {
    if (error instanceof UnknownFolderError) {
      return data({ state: "error" as const }, { status: 404 });
    }
    throwIfDatabaseBusy(error);
    console.error(error);
    return data({ state: "failed" as const }, { status: 500 });
  }
  return data({ state: "success" as const });
}

export default function ResubscribePage() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();

  if (loaderData.state === "error" || actionData?.state === "error") {
    return (
      <RecipientLinkProblem
        title="Re-subscribe"
        alert={INVALID}
        explanation="Please use the link from the most recent invitation e-mail, exactly as it is."
      />
    );
  }
  const { folderId, email, token, folderName, senderName } = loaderData;

  if (actionData?.state === "success") {
    return (
      <RecipientChoiceDone
        title={`You're back on the list for ${folderName}`}
        description={
          <p role="status">
            {`${email} will receive "${folderName}" from ${senderName} again, starting with the next delivery. Every e-mail has a link to unsubscribe whenever you like.`}
          </p>
        }
      />
    );
  }

  return (
    <AuthCard
      forRecipient
      title="Re-subscribe"
      description={
        <p>{`${senderName} would like to keep sharing "${folderName}" with you at ${email}.`}</p>
      }
    >
      <PressToConfirmForm
        fields={{ folder: folderId, email, token }}
        label="Re-subscribe"
        pendingText="Re-subscribing..."
        error={actionData?.state === "failed" ? FAILED : undefined}
      />
    </AuthCard>
  );
}
