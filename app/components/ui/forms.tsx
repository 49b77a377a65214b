import type { SubmissionResult } from "@conform-to/react";
import { useLocation, useNavigation, useRouteLoaderData } from "@remix-run/react";
import { type InputHTMLAttributes, type ReactNode, useId, useMemo } from "react";
import { CSRF_FIELD } from "~/platform/csrf";
import { ONE_TIME_KEY_FIELD } from "~/platform/one-time-keys";
import type { loader as rootLoader } from "~/root";

/** The CSRF token field that every <Form method="post"> carries (see app/modules/auth/csrf.server.ts). */
export function CsrfInput() {
  const data = useRouteLoaderData<typeof rootLoader>("root");
  return <input type="hidden" name={CSRF_FIELD} value={data?.csrfToken ?? ""} />;
}

/** A create form's one-time key, made by its loader: a repeat of the form saves nothing more. */
export function OneTimeKeyInput({ value }: { value: string | undefined }) {
  if (!value) return null;
  return <input type="hidden" name={ONE_TIME_KEY_FIELD} value={value} />;
}

/**
 * What was typed into this page's form before its session ended, as conform's
 * `lastResult`: it refills the form once, and the person saves it
 * (docs/decisions/0156-typed-input-survives-a-session-that-ended.md).
 */
export function useKeptDraft(): SubmissionResult<string[]> | undefined {
  const kept = useRouteLoaderData<typeof rootLoader>("root")?.keptDraft;
  const location = useLocation();
  const page = `${location.pathname}${location.search}`;
  // One object per draft: conform reports every new `lastResult` it is given, and a
  // new object on each render made it report, render and report again without end.
  return useMemo(
    () => (kept && kept.page === page ? { initialValue: kept.initialValue } : undefined),
    [kept, page],
  );
}

export function ErrorList({ id, errors }: { id?: string; errors?: string[] | null }) {
  const shown = errors?.filter(Boolean) ?? [];
  if (shown.length === 0) return null;
  return (
    <ul id={id} className="mt-1.5 space-y-0.5 text-sm text-red-700">
      {shown.map((error) => (
        <li key={error}>{error}</li>
      ))}
    </ul>
  );
}

type FieldProps = {
  label: string;
  /** Beside the label, e.g. a link to another way of answering: above the field, where errors shown on blur cannot move it. */
  labelAside?: ReactNode;
  hint?: ReactNode;
  errors?: string[] | null;
  inputProps: InputHTMLAttributes<HTMLInputElement> & { key?: string | null };
  className?: string;
};

/** A labelled input with its hint and its error messages beneath it (docs/product-rules.md, Pages and messages). */
export function Field({ label, labelAside, hint, errors, inputProps, className = "" }: FieldProps) {
  const fallbackId = useId();
  const { key, ...props } = inputProps;
  const id = props.id ?? fallbackId;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  const labelElement = (
    <label htmlFor={id} className="block text-sm font-medium text-stone-800">
      {label}
    </label>
  );
  return (
    <div className={className}>
      {labelAside ? (
        <div className="flex flex-wrap items-end justify-between gap-x-4">
          {labelElement}
          {labelAside}
        </div>
      ) : (
        labelElement
      )}
      <input
        key={key ?? undefined}
        {...props}
        id={id}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(" ") || undefined}
        className="mt-1 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900 shadow-xs placeholder:text-stone-400 focus:border-brand-600 focus:outline-hidden focus:ring-2 focus:ring-brand-200 disabled:bg-stone-100 disabled:text-stone-600 aria-[invalid]:border-red-600"
      />
      {hint ? (
        <p id={hintId} className="mt-1 text-xs text-stone-600">
          {hint}
        </p>
      ) : null}
      <ErrorList id={errorId} errors={errors} />
    </div>
  );
}

/** Whether a submission by this button (its intent, its action) is in flight. */
function useSubmitting({ intent, formAction }: { intent?: string; formAction?: string }) {
  const navigation = useNavigation();
  return (
    navigation.state === "submitting" &&
    (intent === undefined || navigation.formData?.get("intent") === intent) &&
    (formAction === undefined || navigation.formAction === formAction)
  );
}

/**
 * A submit button that shows its pending label while this form's submission
 * is in flight (JavaScript only; without it the browser's own loading shows).
 */
export function SubmitButton({
  children,
  pendingText,
  formAction,
  intent,
  className = "btn-primary w-full",
  sending = false,
}: {
  children: ReactNode;
  pendingText: string;
  formAction?: string;
  intent?: string;
  className?: string;
  /** The form is being sent outside Remix's navigation (an upload with progress). */
  sending?: boolean;
}) {
  const pending = useSubmitting({ intent, formAction }) || sending;
  return (
    <button
      type="submit"
      name={intent ? "intent" : undefined}
      value={intent}
      formAction={formAction}
      disabled={pending}
      aria-disabled={pending}
      className={className}
    >
      {pending ? pendingText : children}
    </button>
  );
}

/**
 * The button Enter presses. Enter in a field presses the form's first submit button, which
 * in a form with Add or Remove buttons before its main one would be "Remove recipient 1".
 * Put first in such a form, this unseen copy of the main button (same intent, out of the tab
 * order and of what screen readers list) makes Enter save
 * (docs/decisions/0127-enter-presses-the-main-button.md). Rendered but unseen rather than
 * `hidden`: Chromium presses a `hidden` one too, but only Chromium is tested here.
 */
export function DefaultSubmit({ intent }: { intent?: string }) {
  // Disabled with the main button, so Enter pressed twice does not save twice.
  const pending = useSubmitting({ intent });
  return (
    <button
      type="submit"
      name={intent ? "intent" : undefined}
      value={intent}
      disabled={pending}
      tabIndex={-1}
      aria-hidden
      data-default-submit=""
      className="sr-only"
    />
  );
}

export function FormAlert({ errors }: { errors?: string[] | null }) {
  const shown = errors?.filter(Boolean) ?? [];
  if (shown.length === 0) return null;
  return (
    <div
      role="alert"
      className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
    >
      {shown.map((error) => (
        <p key={error}>{error}</p>
      ))}
    </div>
  );
}
