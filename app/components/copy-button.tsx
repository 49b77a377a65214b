import { useState } from "react";
import { useHydrated } from "remix-utils/use-hydrated";

/**
 * Copies `text` to the clipboard. Copying needs JavaScript (the clipboard
 * API), so the button exists only once scripts run; without them the text it
 * copies is shown with `select-all`, one tap selecting it whole
 * (docs/decisions/0130-set-ups-on-one-phone.md).
 */
export function CopyButton({
  text,
  label,
  className = "btn-secondary",
}: {
  text: string;
  label: string;
  className?: string;
}) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState(false);
  // The clipboard API exists only in a secure context (HTTPS or localhost).
  if (!hydrated || !navigator.clipboard) return null;
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopied(true);
      }}
      className={className}
    >
      <span aria-live="polite">{copied ? "Copied" : label}</span>
    </button>
  );
}
