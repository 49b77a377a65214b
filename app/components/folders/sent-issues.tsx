import { Link } from "@remix-run/react";
import { pluralize } from "~/utils/format";

/** What the archive and a folder's Sent list show of one issue (app/modules/sending/sent-archive.server.ts). */
export type IssueSummaryView = {
  itemCount: number;
  outcomes: { delivered: number; bounced: number; left: number; failed: number };
  engagement: { opened: number; clicks: number } | null;
};

/** "2 items · 1 delivered · 1 bounced", and the opens and clicks of a tracked (Premium) send. */
export function IssueCounts({ issue }: { issue: IssueSummaryView }) {
  const { outcomes, engagement } = issue;
  return (
    <>
      <p className="text-sm text-stone-700">
        {pluralize(issue.itemCount, "item")} · {outcomes.delivered} delivered
        {outcomes.bounced > 0 ? ` · ${outcomes.bounced} bounced` : ""}
        {outcomes.left > 0 ? ` · ${outcomes.left} skipped (left)` : ""}
        {outcomes.failed > 0 ? ` · ${outcomes.failed} failed` : ""}
      </p>
      {engagement ? (
        <p className="text-sm text-stone-700">
          Opened by about {engagement.opened} · {pluralize(engagement.clicks, "click")}
        </p>
      ) : null}
    </>
  );
}

/**
 * An issue's answers from its recipients in a line, "♥ 3 · 2 notes", with
 * how many are new when `fresh` is given; nothing without any.
 */
export function AnswerTotals({
  answers,
  fresh = 0,
}: {
  answers: { hearts: number; notes: number } | null;
  fresh?: number;
}) {
  if (!answers || answers.hearts + answers.notes === 0) return null;
  const parts = [
    answers.hearts > 0 ? `♥ ${answers.hearts}` : null,
    answers.notes > 0 ? pluralize(answers.notes, "note") : null,
    fresh > 0 ? `${fresh} new` : null,
  ].filter(Boolean);
  return (
    <p className="text-sm text-rose-800">
      <span className="sr-only">Answers: </span>
      {parts.join(" · ")}
    </p>
  );
}

/** One sent item's answers as its sender sees them (app/modules/answers/answers.server.ts answersOfIssue). */
export type ItemAnswersView = {
  hearts: string[];
  notes: { id: number; name: string; at: string; body: string; replyHref: string }[];
};

/** "♥ 2 — Ann, Bob", then each note with who wrote it, when, and a link to reply by mail. */
export function ItemAnswers({
  answers,
  itemTitle,
}: {
  answers: ItemAnswersView;
  itemTitle: string;
}) {
  return (
    <section
      aria-label={`Answers to ${itemTitle}`}
      className="mt-3 space-y-2 border-t border-stone-200 pt-2"
    >
      {answers.hearts.length > 0 ? (
        <p className="text-rose-800">
          ♥ {answers.hearts.length} — {answers.hearts.join(", ")}
        </p>
      ) : null}
      {answers.notes.length > 0 ? (
        <ul className="space-y-2">
          {answers.notes.map((note) => (
            <li key={note.id} className="rounded-lg bg-stone-50 p-2">
              <p className="text-xs text-stone-600">
                <span className="font-medium text-stone-900">{note.name}</span> · {note.at}
              </p>
              {/* Plain text as typed: React escapes it, pre-wrap keeps its lines. */}
              <p className="whitespace-pre-wrap wrap-break-word text-stone-900">{note.body}</p>
              <a
                href={note.replyHref}
                className="inline-flex min-h-11 min-w-11 items-center underline"
              >
                Reply<span className="sr-only"> to {note.name}</span>
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** Under a list of issues: what the opens mean, or what Premium would show. */
export function OpensNote({ premium }: { premium: boolean }) {
  return premium ? (
    <p className="text-xs text-stone-600">
      Opens are estimates: some mail apps load images for privacy or safety checks, which counts as
      an open; others block images, so a read is missed.
    </p>
  ) : (
    <p className="text-xs text-stone-600">
      With Premium you see how many recipients opened each issue and clicked its links.
    </p>
  );
}

/** Newer and Older links between pages of issues. */
export function IssuePages({
  page,
  pageCount,
  pageLink,
}: {
  page: number;
  pageCount: number;
  pageLink: (page: number) => string;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav aria-label="Sent pages" className="flex items-center justify-between text-sm">
      {page > 1 ? (
        <Link to={pageLink(page - 1)} className="flex min-h-11 items-center underline">
          Newer
        </Link>
      ) : (
        <span />
      )}
      <span>
        Page {page} of {pageCount}
      </span>
      {page < pageCount ? (
        <Link to={pageLink(page + 1)} className="flex min-h-11 items-center underline">
          Older
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}

/** A sent link's preview card as the e-mail showed it; its picture while it is still stored. */
export function SentLinkPreview({
  preview,
  title,
  url,
}: {
  preview: {
    siteName: string | null;
    title: string | null;
    description: string | null;
    imageKey: string | null;
  };
  title: string;
  url: string | undefined;
}) {
  const picture = preview.imageKey ? (
    <img
      src={`/files/${preview.imageKey}`}
      alt={preview.title ?? title}
      loading="lazy"
      className="max-h-48 w-full object-cover"
    />
  ) : null;
  return (
    <figure
      className="overflow-hidden rounded-xl border border-stone-200 bg-stone-50"
      aria-label={`Preview of ${title}`}
    >
      {picture && url ? (
        <a href={url} target="_blank" rel="noopener noreferrer nofollow">
          {picture}
        </a>
      ) : (
        picture
      )}
      <figcaption className="space-y-1 p-3 text-sm">
        {preview.siteName ? (
          <p className="text-xs uppercase tracking-wide text-stone-500">{preview.siteName}</p>
        ) : null}
        {preview.title ? <p className="font-medium text-stone-900">{preview.title}</p> : null}
        {preview.description ? <p className="text-stone-700">{preview.description}</p> : null}
      </figcaption>
    </figure>
  );
}
