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
  // What was copied: "Copied" holds only while the text is still the same (a new address is not).
  const [copiedText, setCopiedText] = useState<string | null>(null);
  // The clipboard API exists only in a secure context (HTTPS or localhost).
  if (!hydrated || !navigator.clipboard) return null;
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopiedText(text);
      }}
      className={className}
    >
      <span aria-live="polite">{copiedText === text ? "Copied" : label}</span>
    </button>
  );
}
