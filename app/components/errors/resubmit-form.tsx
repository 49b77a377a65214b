import { CSRF_FIELD } from "~/platform/csrf";
import type { KeptField } from "~/platform/resubmit";

/** "firstName" reads "First name". */
function labelFor(name: string) {
  const words = name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A form sent again as it was typed, a plain post to where it first went: each
 * kept field in a box to check (a secret one blank, to type again), the intent
 * hidden, with `token` as its CSRF token.
 */
export function ResubmitForm({
  fields,
  action,
  token,
  submitLabel,
}: {
  fields: KeptField[];
  action: string;
  token: string;
  submitLabel: string;
}) {
  const visible = fields.filter((field) => field.name !== "intent");
  return (
    <form method="post" action={action} className="mt-6 space-y-4">
      <input type="hidden" name={CSRF_FIELD} value={token} />
      {fields
        .filter((field) => field.name === "intent")
        .map((field) => (
          <input key={field.name} type="hidden" name={field.name} value={field.value} />
        ))}
      {visible.map((field, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the list is fixed for the life of this page and names may repeat
        <div key={index}>
          <label htmlFor={`resubmit-${index}`} className="block text-sm font-medium text-stone-800">
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
        {submitLabel}
      </button>
    </form>
  );
}
