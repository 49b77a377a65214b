const SEVERITY_STYLES: Record<string, string> = {
  low: "bg-stone-200 text-stone-800",
  medium: "bg-amber-100 text-amber-900",
  high: "bg-orange-200 text-orange-900",
  critical: "bg-red-700 text-white",
};

/** A security event's severity as a pill: the word itself, its colour only a second cue. */
export function SeverityBadge({ severity }: { severity: string }) {
  return (
    <span
      className={`inline-block rounded-full px-2 py-0.5 text-xs font-semibold capitalize ${SEVERITY_STYLES[severity] ?? SEVERITY_STYLES.low}`}
    >
      {severity}
    </span>
  );
}
