import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { AnswerTotals, IssueCounts, IssuePages, OpensNote } from "~/components/folders/sent-issues";
import { AppShell } from "~/components/layout/app-shell";
import { answerTotals, markAnswersSeen, newAnswerCount } from "~/modules/answers/answers.server";
import { newAnswersByIssue } from "~/modules/answers/answers-seen.server";
import { requireUser } from "~/modules/auth/session.server";
import { getFolder } from "~/modules/folders/folders.server";
import { isPremium } from "~/modules/plans/quota.server";
import { nextIssueLine } from "~/modules/recipients/next-issue-line";
import { nextIssueReach } from "~/modules/recipients/recipients.server";
import { archiveFolderChoices, listArchive } from "~/modules/sending/sent-archive.server";
import { formatDateTime } from "~/platform/dates";

/**
 * "Save": the archive of every issue the user sent, from every folder or from
 * one (`?folder=ID`, a plain GET form), newest first, ten a page
 * (docs/decisions/0149-save-is-the-archive.md), each with its recipients'
 * hearts and notes. Opening it marks every answer seen, after reading which
 * were new, so this visit still shows them as new
 * (docs/decisions/0164-answers-seen-on-the-save-tab.md).
 */

export const meta: MetaFunction = () => [{ title: "Save · Thoughtfully" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const params = new URL(request.url).searchParams;
  const folders = archiveFolderChoices(user.id);
  // Only the user's own folders filter; any other value shows every folder.
  const folderId = folders.find((folder) => String(folder.id) === params.get("folder"))?.id ?? null;
  const archive = listArchive(user.id, { folderId, page: Number(params.get("page") ?? "1") });
  // The folder chosen: who its next issue will reach, as its card says (docs/decisions/0210-counts-that-are-true.md).
  const chosen = folderId === null ? null : getFolder(user.id, folderId);
  const nextIssue = chosen
    ? { folderName: chosen.name, line: nextIssueLine(nextIssueReach([chosen]).get(chosen.id)!) }
    : null;
  const ledgerIds = archive.issues.map((issue) => issue.id);
  const totals = answerTotals(user.id, ledgerIds);
  const fresh = newAnswersByIssue(user.id, ledgerIds);
  const newAnswers = newAnswerCount(user.id);
  markAnswersSeen(user.id);
  return {
    newAnswers,
    folders,
    folderId,
    nextIssue,
    page: archive.page,
    pageCount: archive.pageCount,
    total: archive.total,
    premium: isPremium(user),
    issues: archive.issues.map((issue) => ({
      ...issue,
      sentAt: formatDateTime(issue.sentAt, user.timeZone),
      answers: totals.get(issue.id) ?? null,
      newAnswers: fresh.get(issue.id) ?? 0,
    })),
  };
}

type ArchivedIssue = Awaited<ReturnType<typeof loader>>["issues"][number];

function ArchivedIssueCard({ issue }: { issue: ArchivedIssue }) {
  const recipients = issue.recipients.map((recipient) => recipient.name ?? recipient.email);
  return (
    <article className="flex gap-3 py-4" aria-labelledby={`issue-${issue.id}`}>
      {issue.picture ? (
        <img
          src={`/files/${issue.picture.key}`}
          alt={issue.picture.alt}
          loading="lazy"
          className="h-16 w-16 shrink-0 rounded-lg border border-stone-200 object-cover sm:h-20 sm:w-20"
        />
      ) : null}
      <div className="min-w-0 flex-1 space-y-0.5">
        <h2 id={`issue-${issue.id}`} className="font-medium">
          <Link
            to={`/folders/${issue.folder.id}/sent/${issue.id}?from=save`}
            className="inline-flex min-h-11 items-center text-emerald-900 underline"
          >
            {issue.sentAt}
          </Link>
        </h2>
        <p className="wrap-break-word text-sm text-stone-800">
          From “{issue.folder.name}”{recipients.length > 0 ? ` to ${recipients.join(", ")}` : ""}
        </p>
        <IssueCounts issue={issue} />
        <AnswerTotals answers={issue.answers} fresh={issue.newAnswers} />
      </div>
    </article>
  );
}

export default function SaveView() {
  const { folders, folderId, nextIssue, page, pageCount, total, premium, issues, newAnswers } =
    useLoaderData<typeof loader>();
  const pageLink = (target: number) =>
    `/save?${new URLSearchParams({ ...(folderId ? { folder: String(folderId) } : {}), page: String(target) })}`;
  return (
    <AppShell>
      <section className="mx-auto max-w-3xl space-y-4 px-4 py-6 sm:px-6">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">Save</h1>
        <p className="text-stone-700">Every issue you sent, from every folder, newest first.</p>
        {newAnswers > 0 ? (
          <p className="rounded-xl bg-rose-50 p-3 text-sm text-rose-900">
            {newAnswers === 1 ? "1 new answer" : `${newAnswers} new answers`} from your recipients
            since you last looked.
          </p>
        ) : null}
        <Form
          method="get"
          action="/save"
          className="flex flex-wrap items-end gap-2 rounded-xl bg-stone-100 p-3"
        >
          <div className="min-w-0 flex-1">
            <label htmlFor="archive-folder" className="block text-sm font-medium text-stone-800">
              Folder
            </label>
            <select
              id="archive-folder"
              name="folder"
              defaultValue={folderId ?? ""}
              key={folderId ?? ""}
              className="mt-1 block min-h-11 w-full rounded-lg border border-stone-300 bg-white px-3 text-stone-900"
            >
              <option value="">All folders</option>
              {folders.map((folder) => (
                <option key={folder.id} value={folder.id}>
                  {folder.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="btn-secondary min-h-11">
            Show
          </button>
        </Form>
        {nextIssue ? (
          <p className="text-sm text-stone-700">
            Next issue of {nextIssue.folderName}: {nextIssue.line}.
          </p>
        ) : null}
        {total === 0 ? (
          <p className="text-stone-700">
            {folderId
              ? "Nothing sent from this folder yet."
              : "Nothing sent yet. Each issue your folders send is kept here for you to look back at."}
          </p>
        ) : (
          <>
            <div className="divide-y divide-stone-200">
              {issues.map((issue) => (
                <ArchivedIssueCard key={issue.id} issue={issue} />
              ))}
            </div>
            <OpensNote premium={premium} />
            <IssuePages page={page} pageCount={pageCount} pageLink={pageLink} />
          </>
        )}
      </section>
    </AppShell>
  );
}
