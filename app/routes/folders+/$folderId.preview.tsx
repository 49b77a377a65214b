import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { GMAIL_CLIP_BYTES, type RenderedNewsletter } from "#emails/newsletter.server";
import { HEADER_IMAGE_CID } from "#emails/newsletter-themes";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { ItemsThatWait } from "~/components/folders/items-that-wait";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder, recipientsOf } from "~/modules/folders/folders.server";
import { itemsThatWait } from "~/modules/items/needs-note.server";
import { folderSizeLimit, folderStats } from "~/modules/plans/quota.server";
import { activeRecipients } from "~/modules/recipients/opt-outs.server";
import { renderPreview, sendTestEmail } from "~/modules/sending/preview.server";
import { previewSizeInWords } from "~/modules/sending/preview-size";
import { sendNowBlocker } from "~/modules/sending/send-now";
import { orNotFound } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * Email Preview: the folder's next newsletter exactly as it would be sent now
 * (same renderer as the send engine), addressed to the sender, and a "Send me
 * a test" button that mails that copy to the sender alone. Neither changes
 * anything in the folder: no ledger entry, no item marked sent.
 */

export const meta: MetaFunction = () => [{ title: "Email Preview · Thoughtfully" }];

/**
 * The preview copy only: a page cannot show `cid:` images, so photos point at
 * the file route, which serves them to their owner (the one looking).
 */
function withViewableImages(html: string, rendered: RenderedNewsletter) {
  const { attachments, headerImage } = rendered;
  let result = headerImage
    ? html.replaceAll(
        `src="cid:${HEADER_IMAGE_CID}"`,
        `src="data:${headerImage.contentType};base64,${headerImage.content.toString("base64")}"`,
      )
    : html;
  for (const attachment of attachments) {
    if (!attachment.cid) continue;
    result = result.replaceAll(
      `src="cid:${attachment.cid}"`,
      `src="/files/${encodeURIComponent(attachment.storageKey)}"`,
    );
  }
  return result;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  const itemCount = folderStats(user.id).get(folder.id)?.itemCount ?? 0;
  const waiting = itemsThatWait(user.id, folder.id);
  const base = {
    folderId: folder.id,
    waiting,
    senderEmail: user.email,
    canSendTest: user.emailVerified,
    sendNowBlocker:
      sendNowBlocker({
        itemCount,
        waiting: waiting.map((item) => item.waitingFor),
        isUnsubscribed: folder.isUnsubscribed || activeRecipients(folder).length === 0,
        isPaused: folder.isPaused,
        pauseReason: folder.pauseReason,
        senderVerified: user.emailVerified,
      }) ?? null,
  };
  const preview = renderPreview(folder, user);
  if (!preview) return { ...base, preview: null };
  const { rendered, html } = preview;
  const limitBytes = folderSizeLimit(recipientsOf(folder));
  return {
    ...base,
    preview: {
      subject: rendered.subject,
      html: withViewableImages(html, rendered),
      htmlBytes: rendered.htmlBytes,
      totalBytes: rendered.totalBytes,
      attachmentCount: rendered.attachments.length,
      limitBytes,
      overLimit: rendered.totalBytes > limitBytes,
      clipped: preview.copyHtmlBytes > GMAIL_CLIP_BYTES,
    },
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  await readProtectedForm(request);
  const folder = orNotFound(() => getFolder(user.id, folderId));
  const back = `/folders/${folder.id}/preview`;
  const test = await sendTestEmail(request, folder, user);
  switch (test.outcome) {
    case "sent":
      return redirectWithToast(back, { title: `Test sent to ${user.email}` });
    case "unverified":
      return redirectWithToast(back, {
        title: "Confirm your e-mail address first",
        description: "Test e-mails go to your address once it is confirmed.",
        variant: "destructive",
      });
    case "nothing-to-send":
      return redirectWithToast(back, {
        title: "Nothing to send yet",
        description: "Add something to this folder first.",
        variant: "destructive",
      });
    case "too-many":
      return redirectWithToast(back, {
        title: "Too many test e-mails",
        description: test.retryMessage,
        variant: "destructive",
      });
    case "failed":
      return redirectWithToast(back, {
        title: "The test e-mail could not be sent",
        description: "Please try again in a few minutes.",
        variant: "destructive",
      });
  }
}

export default function EmailPreview() {
  const { folderId, senderEmail, canSendTest, sendNowBlocker, preview, waiting } =
    useLoaderData<typeof loader>();
  return (
    <Dialog title="Email Preview" closeTo={`/folders/${folderId}`} fullScreenOnPhone wide>
      {preview ? (
        <div className="flex min-h-0 flex-1 flex-col gap-3 sm:block sm:space-y-4">
          <p className="text-sm text-stone-700">
            Subject: <span className="font-medium text-stone-900">{preview.subject}</span>
          </p>
          {/*
            Sandboxed: no scripts, forms, pop-ups or top navigation. allow-same-origin
            only so the frame's image requests carry the session cookie (an opaque
            origin gets none, and /files/… serves the owner only); without
            allow-scripts nothing in the frame can use that origin.
            On a phone it takes the screen's remaining height: the e-mail is the one
            thing that scrolls.
          */}
          <iframe
            sandbox="allow-same-origin"
            srcDoc={preview.html}
            title="Email preview"
            className="min-h-[45dvh] w-full flex-1 rounded-lg border border-stone-200 bg-white sm:h-[65vh] sm:min-h-0"
          />
          <p className="text-sm text-stone-700">{previewSizeInWords(preview)}</p>
          <ItemsThatWait items={waiting} />
          {preview.overLimit ? (
            <p
              role="alert"
              className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
            >
              Remove some photos or files so it can be sent.
            </p>
          ) : null}
          {preview.clipped ? (
            <p className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
              This e-mail is long: Gmail shows about the first 100 KB and hides the rest behind
              "View entire message".
            </p>
          ) : null}
          <div className="grid grid-cols-2 gap-2 border-t border-stone-200 pt-3 sm:pt-4">
            <Form method="post" preventScrollReset>
              <CsrfInput />
              <SubmitButton pendingText="Sending..." className="btn-secondary w-full">
                Send me a test
              </SubmitButton>
            </Form>
            {sendNowBlocker ? (
              <button
                type="button"
                disabled
                aria-describedby="preview-send-now-blocker"
                className="btn-primary w-full"
              >
                Send Now
              </button>
            ) : (
              <Link
                to={`/folders/${folderId}/confirm-send?from=preview`}
                className="btn-primary w-full"
                preventScrollReset
              >
                Send Now
              </Link>
            )}
            <p className="col-span-2 text-xs text-stone-600">
              {canSendTest
                ? `A test goes to you only (${senderEmail}); nothing in the folder changes.`
                : "Confirm your e-mail address to send yourself a test."}{" "}
              {sendNowBlocker ? (
                <span id="preview-send-now-blocker">{sendNowBlocker}</span>
              ) : (
                "Send Now asks first, then sends this e-mail to the folder's recipients."
              )}
            </p>
          </div>
        </div>
      ) : waiting.length > 0 ? (
        <div className="space-y-3">
          <p className="text-sm text-stone-700">
            {`Nothing would be sent now: ${waiting.every((item) => item.waitingFor === "note") ? "every item waits for a note" : "every item waits"}.`}
          </p>
          <ItemsThatWait items={waiting} />
        </div>
      ) : (
        <p className="text-sm text-stone-700">
          This folder is empty, so there is nothing to preview yet. Add a link, a musing, a photo or
          a file, and you will see here the e-mail your recipients will get.
        </p>
      )}
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
