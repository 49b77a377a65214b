import { useLocation, useNavigation } from "@remix-run/react";
import { type FormEvent, useCallback, useEffect, useState } from "react";

/**
 * A form's typing, kept in this browser's localStorage as it is typed, so a reload, a crash or
 * a submit that never reached the server loses nothing; a submit made with no connection waits
 * for it and goes by itself (docs/decisions/0200-typing-kept-on-the-device.md). Files cannot be
 * kept this way: they stay picked while the page stays open. Fields the page adds as it is used
 * (a second link, a fourth recipient) come back only as far as the page shows them.
 */
type KeptField = { name: string; value: string; checked?: boolean };
type KeptDraft = { savedAt: number; fields: KeptField[] };

const PREFIX = "thoughtfully:draft:";
/** A draft older than this is forgotten rather than offered. */
const KEPT_FOR_MS = 7 * 24 * 60 * 60 * 1000;
const SKIPPED = new Set(["hidden", "file", "submit", "button", "reset", "password", "image"]);

export type DraftState = "none" | "restored" | "waiting-for-network";

function fieldsOf(form: HTMLFormElement): KeptField[] {
  const kept: KeptField[] = [];
  for (const element of Array.from(form.elements)) {
    if (
      !(
        element instanceof HTMLInputElement ||
        element instanceof HTMLTextAreaElement ||
        element instanceof HTMLSelectElement
      ) ||
      !element.name ||
      SKIPPED.has(element.type)
    ) {
      continue;
    }
    if (
      element instanceof HTMLInputElement &&
      (element.type === "checkbox" || element.type === "radio")
    ) {
      kept.push({ name: element.name, value: element.value, checked: element.checked });
    } else {
      kept.push({ name: element.name, value: element.value });
    }
  }
  return kept;
}

function read(key: string): KeptDraft | null {
  try {
    const draft = JSON.parse(localStorage.getItem(key) ?? "null") as KeptDraft | null;
    if (!draft || !Array.isArray(draft.fields) || Date.now() - draft.savedAt > KEPT_FOR_MS) {
      return null;
    }
    return draft;
  } catch {
    return null;
  }
}

function write(key: string, form: HTMLFormElement) {
  try {
    localStorage.setItem(key, JSON.stringify({ savedAt: Date.now(), fields: fieldsOf(form) }));
  } catch {
    // Storage full or refused (a private window): the form still works, unkept.
  }
}

function forget(key: string) {
  try {
    localStorage.removeItem(key);
  } catch {
    // As above.
  }
}

/** Puts a kept draft back into the form, announcing each change as the person's own. */
function refill(form: HTMLFormElement, draft: KeptDraft) {
  let changed = false;
  for (const field of draft.fields) {
    const element = Array.from(form.elements).find(
      (candidate): candidate is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement =>
        (candidate instanceof HTMLInputElement ||
          candidate instanceof HTMLTextAreaElement ||
          candidate instanceof HTMLSelectElement) &&
        candidate.name === field.name &&
        (field.checked === undefined || candidate.value === field.value),
    );
    if (!element) continue;
    if (field.checked !== undefined && element instanceof HTMLInputElement) {
      // A click, so React's own change handlers (which open a box's text area) run too.
      if (element.checked !== field.checked) {
        element.click();
        changed = true;
      }
    } else if (element.value !== field.value) {
      element.value = field.value;
      element.dispatchEvent(new Event("input", { bubbles: true }));
      element.dispatchEvent(new Event("change", { bubbles: true }));
      changed = true;
    }
  }
  return changed;
}

export function useDraftOnDevice(
  formId: string,
  { refillFromDevice }: { refillFromDevice: boolean },
) {
  const location = useLocation();
  const navigation = useNavigation();
  const key = `${PREFIX}${location.pathname}`;
  const [state, setState] = useState<DraftState>("none");

  useEffect(() => {
    const form = document.getElementById(formId);
    if (!(form instanceof HTMLFormElement)) return;
    const kept = refillFromDevice ? read(key) : null;
    if (kept && refill(form, kept)) setState("restored");
    const keep = (event: Event) => {
      const target = event.target;
      if (target instanceof Element && (target as HTMLInputElement).form === form) write(key, form);
    };
    document.addEventListener("input", keep);
    document.addEventListener("change", keep);
    return () => {
      document.removeEventListener("input", keep);
      document.removeEventListener("change", keep);
    };
  }, [formId, key, refillFromDevice]);

  // The server took it: its answer moves the person elsewhere (a refusal stays on the form).
  const tookIt =
    navigation.state === "loading" &&
    navigation.formMethod !== undefined &&
    navigation.location.pathname !== location.pathname;
  useEffect(() => {
    if (tookIt) forget(key);
  }, [tookIt, key]);

  /**
   * Call first in the form's submit handler: with no connection it keeps the draft, stops the
   * submit, and sends the form again once the browser is back online. True when it did.
   */
  const waitForNetwork = useCallback(
    (event: FormEvent<HTMLFormElement>) => {
      if (navigator.onLine) return false;
      event.preventDefault();
      const form = event.currentTarget;
      write(key, form);
      setState("waiting-for-network");
      window.addEventListener(
        "online",
        () => {
          setState("none");
          form.requestSubmit();
        },
        { once: true },
      );
      return true;
    },
    [key],
  );

  const discard = useCallback(() => {
    forget(key);
    const form = document.getElementById(formId);
    if (form instanceof HTMLFormElement) form.reset();
    setState("none");
  }, [formId, key]);

  return { state, waitForNetwork, discard };
}

/** What the draft's state means, said where the person looks: above the form's buttons. */
export function DraftOnDeviceStatus({
  state,
  uploads,
  onDiscard,
}: {
  state: DraftState;
  uploads: boolean;
  onDiscard: () => void;
}) {
  if (state === "none") return null;
  return (
    <p role="status" className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
      {state === "waiting-for-network" ? (
        uploads ? (
          "You're offline. This uploads when you're back online: keep this page open."
        ) : (
          "Saved on this phone, uploads when you're back online."
        )
      ) : (
        <>
          What you typed here before is back.{" "}
          <button type="button" className="font-medium underline" onClick={onDiscard}>
            Start over
          </button>
        </>
      )}
    </p>
  );
}

/** Signed out, this browser keeps nobody's typing: the next person at it sees none. */
export function useNoDraftsWhenSignedOut(signedIn: boolean) {
  useEffect(() => {
    if (signedIn) return;
    try {
      for (const key of Object.keys(localStorage)) {
        if (key.startsWith(PREFIX)) localStorage.removeItem(key);
      }
    } catch {
      // Storage refused: there is nothing kept either.
    }
  }, [signedIn]);
}
