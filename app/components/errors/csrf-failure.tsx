import { Link } from "@remix-run/react";
import { CROSS_SITE_REFUSAL } from "~/platform/cross-site";
import { CSRF_FIELD, type CsrfFailure } from "~/platform/csrf";

/** "firstName" reads "First name". */
function labelFor(name: string) {
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

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
  const visible = failure.fields.filter((field) => field.name !== "intent");
  return (
    <section className="mx-auto max-w-lg px-4 py-16">
      <h1 className="font-serif text-3xl font-semibold text-stone-900">Please submit again</h1>
      <p className="mt-4 text-stone-700">
        This form had expired or did not come from this site, so nothing was changed. What you typed
        is kept below: check it and send it again.
      </p>
      <form method="post" action={failure.action} className="mt-6 space-y-4">
        <input type="hidden" name={CSRF_FIELD} value={failure.token} />
        {failure.fields
          .filter((field) => field.name === "intent")
          .map((field) => (
            <input key={field.name} type="hidden" name={field.name} value={field.value} />
          ))}
        {visible.map((field, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for the life of this page and names may repeat
          <div key={index}>
            <label
              htmlFor={`resubmit-${index}`}
              className="block text-sm font-medium text-stone-800"
            >
              {labelFor(field.name)}
            </label>
            <input
              id={`resubmit-${index}`}
              name={field.name}
              type={field.secret ? "password" : "text"}
              defaultValue={field.value}
              required={field.secret}
              className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2"
            />
          </div>
        ))}
        <button type="submit" className="btn-primary">
          Submit again
        </button>
      </form>
    </section>
  );
}
