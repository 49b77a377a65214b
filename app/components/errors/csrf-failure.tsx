import { Link } from "@remix-run/react";
import { CROSS_SITE_REFUSAL } from "~/platform/cross-site";
import type { CsrfFailure } from "~/platform/csrf";
import { ResubmitForm } from "./resubmit-form";

/**
 * The 403 page for a form whose security token did not check out. An old tab
 * or a lost cookie keeps what was typed (never passwords) and offers to send
 * it again with a fresh token; a post from another site is only refused.
 */
export function CsrfFailurePage({ failure }: { failure: CsrfFailure }) {
  if (failure.reason === "cross_origin") {
    return (
      <section className="mx-auto max-w-lg px-4 py-16">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">
          {CROSS_SITE_REFUSAL.title}
        </h1>
        <p className="mt-4 text-stone-700">{CROSS_SITE_REFUSAL.text}</p>
        <Link to="/" className="btn-primary mt-6 inline-block">
          {CROSS_SITE_REFUSAL.link}
        </Link>
      </section>
    );
  }
  return (
    <section className="mx-auto max-w-lg px-4 py-16">
      <h1 className="font-serif text-3xl font-semibold text-stone-900">Please submit again</h1>
      <p className="mt-4 text-stone-700">
        This form had expired or did not come from this site, so nothing was changed. What you typed
        is kept below: check it and send it again.
      </p>
      <ResubmitForm
        fields={failure.fields}
        action={failure.action}
        token={failure.token}
        submitLabel="Submit again"
      />
    </section>
  );
}
