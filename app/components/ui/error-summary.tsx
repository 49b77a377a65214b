import { useEffect, useId, useRef } from "react";

/** One problem with a form: its message and, when a field can fix it, that field's id. */
export type SummaryError = { message: string; title?: string; fieldId?: string };

/**
 * The GOV.UK error summary: every problem the server found, at the top of the form, each a link
 * to the field that fixes it, and the focus on it, so a person at the bottom of a long form on a
 * phone is taken to what went wrong. `autoFocus` moves the focus without JavaScript (the page
 * the server answered with); with it, the focus moves again each time `answer` changes, a new
 * answer from the server (docs/decisions/0137-uploads-you-can-watch.md).
 */
export function ErrorSummary({ errors, answer }: { errors: SummaryError[]; answer: unknown }) {
  const titleId = useId();
  const summary = useRef<HTMLDivElement>(null);
  const shown = errors.length > 0;
  useEffect(() => {
    if (shown && answer) summary.current?.focus();
  }, [answer, shown]);
  if (!shown) return null;
  return (
    <div
      ref={summary}
      role="alert"
      aria-labelledby={titleId}
      tabIndex={-1}
      // Without JavaScript the focus still lands here on the answered page.
      // biome-ignore lint/a11y/noAutofocus: the GOV.UK pattern moves the focus to the summary
      autoFocus
      data-error-summary=""
      className="rounded-lg border-2 border-red-700 bg-red-50 px-4 py-3 text-sm focus:outline-hidden focus-visible:ring-4 focus-visible:ring-amber-300"
    >
      <h3 id={titleId} className="font-semibold text-red-900">
        There is a problem
      </h3>
      <ul className="mt-1 space-y-1 text-red-800">
        {errors.map((error) => {
          const text = error.title ? (
            <>
              <span className="font-semibold">{error.title}:</span> {error.message}
            </>
          ) : (
            error.message
          );
          return (
            <li key={`${error.fieldId ?? ""}-${error.title ?? ""}-${error.message}`}>
              {error.fieldId ? (
                <a href={`#${error.fieldId}`} className="underline underline-offset-2">
                  {text}
                </a>
              ) : (
                text
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
