import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { ItemsThatWait } from "~/components/folders/items-that-wait";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder } from "~/modules/folders/folders.server";
import { itemsThatWait } from "~/modules/items/needs-note.server";
import { folderStats } from "~/modules/plans/quota.server";
import { activeRecipients } from "~/modules/recipients/opt-outs.server";
import { listNames, sendNowBlocker } from "~/modules/sending/send-now";
import { orNotFound } from "~/platform/errors.server";
import { pluralize } from "~/utils/format";

export const meta: MetaFunction = () => [{ title: "Send now? · Thoughtfully" }];

/**
 * Send Now empties the folder and cannot be taken back, so the dashboard's
 * button (and the Email Preview's) opens this question first; its answer posts to the send action
 * (/folders/:id/send), which checks the same rules again.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  const itemCount = folderStats(user.id).get(folder.id)?.itemCount ?? 0;
  const waiting = itemsThatWait(user.id, folder.id);
  const recipients = activeRecipients(folder).map((recipient) =>
    recipient.name && recipient.name !== "recipient" ? recipient.name : recipient.email,
  );
  // Asked from the Email Preview, Back returns to it.
  const fromPreview = new URL(request.url).searchParams.get("from") === "preview";
  return {
    folderId: folder.id,
    back: fromPreview ? `/folders/${folder.id}/preview` : `/folders/${folder.id}`,
    sendCount: itemCount - waiting.length,
    waiting,
    recipients,
    blocker:
      sendNowBlocker({
        itemCount,
        waiting: waiting.map((item) => item.waitingFor),
        isUnsubscribed: folder.isUnsubscribed || recipients.length === 0,
        isPaused: folder.isPaused,
        pauseReason: folder.pauseReason,
        senderVerified: user.emailVerified,
        senderPaused: user.sendingPausedAt !== null,
      }) ?? null,
  };
}

export default function ConfirmSend() {
  const { folderId, back, sendCount, waiting, recipients, blocker } =
    useLoaderData<typeof loader>();
  return (
    <Dialog
      title={
        blocker
          ? "This folder cannot be sent now"
          : `Send ${pluralize(sendCount, "item")} to ${listNames(recipients)} now?`
      }
      closeTo={back}
    >
      <p className="text-sm text-stone-700">
        {blocker ??
          (waiting.length > 0
            ? "They get one e-mail now. Its schedule carries on as before."
            : "They get one e-mail now, and the folder empties. Its schedule carries on as before.")}
      </p>
      <div className="mt-3">
        <ItemsThatWait items={waiting} />
      </div>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to={back} className="btn-secondary" preventScrollReset>
          Back
        </Link>
        {blocker ? null : (
          <Form method="post" action={`/folders/${folderId}/send`}>
            <CsrfInput />
            <SubmitButton pendingText="Sending..." className="btn-primary w-full">
              Send Now
            </SubmitButton>
          </Form>
        )}
      </div>
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
