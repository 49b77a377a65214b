import type { ReactNode } from "react";

/**
 * One card of a settings page (docs/decisions/0116-one-data-table.md): its
 * heading names it, `id` is its anchor for in-page links (`#passkeys`), and
 * an optional description sits between the heading and the body.
 */
export function SettingsSection({
  id,
  title,
  description,
  tone = "normal",
  children,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  /** `danger`: a red border, for what cannot be undone. */
  tone?: "normal" | "danger";
  children: ReactNode;
}) {
  const headingId = `${id}-heading`;
  return (
    <section
      id={id}
      aria-labelledby={headingId}
      className={`rounded-2xl border bg-white p-6 shadow-xs ${tone === "danger" ? "border-red-200" : "border-stone-200"}`}
    >
      <h2 id={headingId} className="font-serif text-xl font-semibold text-stone-900">
        {title}
      </h2>
      {description ? <p className="mt-2 text-sm text-stone-700">{description}</p> : null}
      {children}
    </section>
  );
}
