import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { AnswerTotals, IssueCounts, IssuePages, OpensNote } from "~/components/folders/sent-issues";
import { Dialog } from "~/components/ui/dialog";
import { answerTotals } from "~/modules/answers/answers.server";
import { requireUser } from "~/modules/auth/session.server";
import { issueReportNotices } from "~/modules/deliverability/suppression-notices.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder, recipientsOf } from "~/modules/folders/folders.server";
import { isPremium } from "~/modules/plans/quota.server";
import { sendStatuses } from "~/modules/sending/send-status.server";
import { listSentIssues } from "~/modules/sending/sent-archive.server";
import { formatDateTime } from "~/platform/dates";
import { invariantResponse, orNotFound } from "~/platform/errors.server";

/** The folder's sent archive: every issue it sent, newest first, ten a page, with its answers. */

export const meta: MetaFunction = () => [{ title: "Sent · Thoughtfully" }];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const page = Number(new URL(request.url).searchParams.get("page") ?? "1");
  const archive = orNotFound(() => listSentIssues(user.id, folderId, page));
  invariantResponse(archive);
  const reports = issueReportNotices(
    user.id,
    archive.issues.map((issue) => issue.id),
    recipientsOf(getFolder(user.id, folderId)),
  );
  const answers = answerTotals(
    user.id,
    archive.issues.map((issue) => issue.id),
  );
  return {
    folderId,
    folderName: archive.folder.name,
    /** The send still under way, or the last one failed: not in the archive, but not nothing. */
    sendStatus: sendStatuses(user.id, user.timeZone, new Date()).get(folderId) ?? null,
    page: archive.page,
    pageCount: archive.pageCount,
    total: archive.total,
    premium: isPremium(user),
    issues: archive.issues.map((issue) => ({
      ...issue,
      sentAt: formatDateTime(issue.sentAt, user.timeZone),
      reports: (reports.get(issue.id) ?? []).map((report) => report.notice),
      answers: answers.get(issue.id) ?? null,
    })),
  };
}

export default function SentIssues() {
  const { folderId, folderName, page, pageCount, total, premium, issues, sendStatus } =
    useLoaderData<typeof loader>();
  const pageLink = (target: number) => `/folders/${folderId}/sent?page=${target}`;
  return (
    <Dialog title={`Sent from "${folderName}"`} closeTo={`/folders/${folderId}`}>
      {sendStatus ? (
        <p className="mb-3 text-sm font-medium text-amber-900">{sendStatus.line}</p>
      ) : null}
      {total === 0 ? (
        <p className="text-sm text-stone-700">
          Nothing sent from this folder yet. Each issue it sends is kept here for you to look back
          at.
        </p>
      ) : (
        <div className="space-y-4">
          <ul className="divide-y divide-stone-200">
            {issues.map((issue) => (
              <li key={issue.id} className="py-3">
                <Link
                  to={`/folders/${folderId}/sent/${issue.id}`}
                  className="inline-flex min-h-11 items-center font-medium text-emerald-900 underline"
                >
                  {issue.sentAt}
                </Link>
                <IssueCounts issue={issue} />
                <AnswerTotals answers={issue.answers} />
                {issue.reports.map((report) => (
                  <p key={report} className="text-sm text-red-800">
                    {report}
                  </p>
                ))}
              </li>
            ))}
          </ul>
          <OpensNote premium={premium} />
          <IssuePages page={page} pageCount={pageCount} pageLink={pageLink} />
        </div>
      )}
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
