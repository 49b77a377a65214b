import { useEffect } from "react";

/**
 * React 18 rewrites a <textarea> from the server's HTML while hydrating, so whatever a person
 * typed into one before the page's script arrived (on a slow phone, a sentence or two) was
 * lost; inputs keep theirs. The typed text is noted just before hydrating and put back after.
 */
let typedBeforeHydration: { id: string; value: string }[] = [];

export function noteTextTypedBeforeHydration() {
  typedBeforeHydration = [...document.querySelectorAll("textarea")]
    .filter((area) => area.id && area.value !== area.defaultValue)
    .map((area) => ({ id: area.id, value: area.value }));
}

/** Once hydrated: each text area React reset gets its typed text back, announced as input. */
export function useTextTypedBeforeHydration() {
  useEffect(() => {
    for (const { id, value } of typedBeforeHydration.splice(0)) {
      const area = document.getElementById(id);
      if (!(area instanceof HTMLTextAreaElement) || area.value !== area.defaultValue) continue;
      area.value = value;
      area.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }, []);
}
