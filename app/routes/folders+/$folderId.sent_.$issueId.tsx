import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import {
  ItemAnswers,
  type ItemAnswersView,
  SentLinkPreview,
} from "~/components/folders/sent-issues";
import { ItemContent } from "~/components/items/item-content";
import { type DataColumn, DataTable } from "~/components/ui/data-table";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { answersOfIssue } from "~/modules/answers/answers.server";
import { replyMailto } from "~/modules/answers/reply-link";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { issueReportNotices } from "~/modules/deliverability/suppression-notices.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder, recipientsOf } from "~/modules/folders/folders.server";
import { deleteSentIssue, filesKept, getSentIssue } from "~/modules/sending/sent-archive.server";
import { formatDateTime } from "~/platform/dates";
import { invariantResponse } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * One sent issue, read-only: when it went, everything it carried as sent
 * (comments, questions, link pictures while stored), and what happened per
 * recipient, by name (with opens and clicks when the send was tracked). Its
 * sender may delete it, which also ends its web version. Under each item, its
 * recipients' hearts and notes, by name, each note with a Reply link
 * (docs/decisions/0159-recipients-answer-back.md). Opened from the
 * archive (`?from=save`), it leads back there
 * (docs/decisions/0151-archive-issue-pages.md).
 */

export const meta: MetaFunction = () => [{ title: "Sent issue · Thoughtfully" }];

function parseIssueId(value: string | undefined) {
  return /^\d{1,15}$/.test(value ?? "") ? Number(value) : 0;
}

const OUTCOME_LABEL = {
  delivered: "Delivered",
  bounced: "Bounced",
  left: "Skipped: had left",
  failed: "Not delivered",
  pending: "Still sending",
} as const;

type Recipient = Awaited<ReturnType<typeof loader>>["recipients"][number];

const DELIVERY_COLUMNS: DataColumn<Recipient>[] = [
  {
    id: "recipient",
    header: "Recipient",
    cellClassName: "break-all",
    cell: (recipient) =>
      recipient.name ? (
        <>
          {recipient.name}
          <span className="block text-xs text-stone-600">{recipient.email}</span>
        </>
      ) : (
        recipient.email
      ),
  },
  {
    id: "outcome",
    header: "Outcome",
    cell: (recipient) => (
      <>
        {OUTCOME_LABEL[recipient.outcome]}
        {recipient.reports.map((report) => (
          <span key={report} className="block text-red-800">
            {report}
          </span>
        ))}
      </>
    ),
  },
];

/** Shown only for a tracked send. */
const ENGAGEMENT_COLUMNS: DataColumn<Recipient>[] = [
  { id: "opens", header: "Opens", cell: (recipient) => recipient.opens },
  { id: "clicks", header: "Clicks", cell: (recipient) => recipient.clicks },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const fromArchive = new URL(request.url).searchParams.get("from") === "save";
  const issue = getSentIssue(user.id, parseFolderId(params.folderId), parseIssueId(params.issueId));
  invariantResponse(issue);
  const reports =
    issueReportNotices(user.id, [issue.id], recipientsOf(getFolder(user.id, issue.folder.id))).get(
      issue.id,
    ) ?? [];
  // Read here, not in getSentIssue: the sending domain sits below answers (tests/repository/layering.test.ts).
  const answers = answersOfIssue(user.id, issue.id);
  return {
    folderId: issue.folder.id,
    folderName: issue.folder.name,
    back: fromArchive
      ? { to: "/save", label: "Back to Save" }
      : { to: `/folders/${issue.folder.id}/sent`, label: "Back to Sent" },
    id: issue.id,
    sentAt: formatDateTime(issue.sentAt, user.timeZone),
    tracked: issue.tracked,
    issueNote: issue.issueNote,
    recipients: issue.recipients.map((recipient) => ({
      ...recipient,
      reports: reports
        .filter((report) => report.email === recipient.email)
        .map((report) => report.notice),
    })),
    items: issue.items.map((item) => {
      const kept = filesKept(item);
      const itemAnswers = answers.get(item.id);
      return {
        id: item.id,
        type: item.type,
        title: item.title,
        urls: item.urls,
        note: item.note,
        // What the e-mail carried: a comment or question only when it was ticked to go.
        ...(item.addComment && item.commentText ? { commentText: item.commentText } : {}),
        ...(item.askQuestion && item.questionText ? { questionText: item.questionText } : {}),
        ...(item.responseExpectation === "na"
          ? {}
          : { responseExpectation: item.responseExpectation }),
        preview:
          item.previewStatus === "ready"
            ? {
                siteName: item.previewSiteName,
                title: item.previewTitle,
                description: item.previewDescription,
                imageKey: kept ? item.previewImageKey : null,
              }
            : null,
        files: item.filePaths.map((key, index) => ({
          key: kept ? key : null,
          thumbnailKey: (kept && item.thumbnailPaths[index]) || null,
          name: item.fileNames[index] ?? "file",
          size: item.fileSizes[index] ?? 0,
        })),
        answers: itemAnswers
          ? ({
              hearts: itemAnswers.hearts.map((heart) => heart.name),
              notes: itemAnswers.notes.map((note) => ({
                id: note.id,
                name: note.name,
                at: formatDateTime(note.createdAt, user.timeZone),
                body: note.body,
                replyHref: replyMailto(note.email, item.title),
              })),
            } satisfies ItemAnswersView)
          : null,
      };
    }),
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  await readProtectedForm(request);
  const deleted = await deleteSentIssue(user.id, folderId, parseIssueId(params.issueId));
  invariantResponse(deleted);
  return redirectWithToast(`/folders/${folderId}/sent`, {
    title: "Sent issue deleted",
    description: "Its web version no longer opens for anyone.",
  });
}

export default function SentIssue() {
  const { folderName, back, sentAt, tracked, issueNote, recipients, items } =
    useLoaderData<typeof loader>();
  return (
    <Dialog title={`Sent ${sentAt}`} closeTo={back.to}>
      <div className="space-y-5">
        <p className="text-sm text-stone-700">
          From “{folderName}” ·{" "}
          <Link to={back.to} className="underline">
            {back.label}
          </Link>
        </p>
        <section aria-labelledby="sent-items">
          <h3 id="sent-items" className="font-semibold text-stone-900">
            What was sent
          </h3>
          {issueNote ? (
            <p className="mt-2 whitespace-pre-line font-serif text-stone-900">{issueNote}</p>
          ) : null}
          <ol className="mt-2 space-y-3">
            {items.map((item) => (
              <li key={item.id} className="rounded-lg border border-stone-200 p-3 text-sm">
                <ItemContent
                  item={item}
                  titleTag="h4"
                  preview={
                    item.preview ? (
                      <SentLinkPreview
                        preview={item.preview}
                        title={item.title}
                        url={item.urls[0]}
                      />
                    ) : null
                  }
                />
                {item.answers ? (
                  <ItemAnswers answers={item.answers} itemTitle={item.title} />
                ) : null}
              </li>
            ))}
          </ol>
        </section>
        <section aria-labelledby="sent-recipients">
          <h3 id="sent-recipients" className="font-semibold text-stone-900">
            Recipients
          </h3>
          <DataTable
            caption="Recipients"
            captionHidden
            className="mt-2"
            rows={recipients}
            rowKey={(recipient) => recipient.email}
            columns={tracked ? [...DELIVERY_COLUMNS, ...ENGAGEMENT_COLUMNS] : DELIVERY_COLUMNS}
          />
          {tracked ? (
            <p className="mt-2 text-xs text-stone-600">
              Opens are estimates: some mail apps load images for privacy or safety checks, which
              counts as an open; others block images, so a read is missed.
            </p>
          ) : null}
        </section>
        <Form method="post" className="border-t border-stone-200 pt-4">
          <CsrfInput />
          <SubmitButton pendingText="Deleting..." className="btn-secondary">
            Delete this issue
          </SubmitButton>
          <p className="mt-1 text-xs text-stone-600">
            Removes it from Sent with its photos and files; its "View in your browser" link stops
            working.
          </p>
        </Form>
      </div>
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
