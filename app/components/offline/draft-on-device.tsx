import { useLocation, useMatches, useNavigate, useNavigation } from "@remix-run/react";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { forgetRefusedSavesOf, keepPendingSave } from "~/components/offline/pending-saves";
import {
  draftKeyOf,
  forgetDraft,
  forgetEverythingKept,
  type KeptDraft,
  type KeptField,
  keepFiles,
  keptFiles,
  readDraft,
  writeDraft,
} from "~/utils/kept-on-device";

/**
 * A form's typing and picked files, kept in this browser as they change, so a reload, a crash or
 * a submit that never reached the server loses nothing; a submit made with no connection waits
 * for it and goes by itself (docs/decisions/0200-typing-kept-on-the-device.md,
 * 0216-saves-wait-on-the-phone.md). Fields the page adds as it is used (a second link, a fourth
 * recipient) come back only as far as the page shows them.
 */
const SKIPPED = new Set(["hidden", "file", "submit", "button", "reset", "password", "image"]);

export type DraftState = "none" | "restored" | "waiting-for-network" | "kept-on-phone";

/** Dispatched by the file picker whenever the files it holds change (file-picker.tsx). */
export const FILES_KEPT = "thoughtfully:files-kept";

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

function pickedFilesOf(form: HTMLFormElement) {
  const input = form.querySelector<HTMLInputElement>('input[type="file"]');
  return input ? Array.from(input.files ?? []) : null;
}

/** Puts kept files back into the form's file input, as if picked again. */
function repick(form: HTMLFormElement, files: File[]) {
  const input = form.querySelector<HTMLInputElement>('input[type="file"]');
  if (!input || files.length === 0 || (input.files?.length ?? 0) > 0) return false;
  const transfer = new DataTransfer();
  for (const file of files) transfer.items.add(file);
  input.files = transfer.files;
  input.dispatchEvent(new Event("change", { bubbles: true }));
  return true;
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
  {
    refillFromDevice,
    pendingIn,
  }: {
    refillFromDevice: boolean;
    /**
     * A new item's folder: its picked files are kept too, and a submit with no signal waits
     * there as a pending save (pending-saves.tsx).
     */
    pendingIn?: { folderId: number };
  },
) {
  const location = useLocation();
  const navigation = useNavigation();
  const navigate = useNavigate();
  const matches = useMatches();
  const key = draftKeyOf(location.pathname);
  const [state, setState] = useState<DraftState>("none");
  // A new item's picked files are kept with its typing; elsewhere (an edit, the upload wizard)
  // the server already holds what was uploaded.
  const keepsFiles = pendingIn !== undefined;

  useEffect(() => {
    const form = document.getElementById(formId);
    if (!(form instanceof HTMLFormElement) || !refillFromDevice) return;
    let current = true;
    const kept = readDraft(key);
    // A draft whose save waits to be sent is that save's: the sheet opens empty for the next one.
    if (kept && !kept.waitingToSend) {
      if (refill(form, kept)) setState("restored");
      if (keepsFiles) {
        void keptFiles(key).then((files) => {
          if (current && repick(form, files)) setState("restored");
        });
      }
    }
    return () => {
      current = false;
    };
  }, [formId, key, refillFromDevice, keepsFiles]);

  // Kept as it changes, the server's answers included: a file it refused leaves the picker
  // (file-picker.tsx) while this listener stays, so the device forgets it too.
  useEffect(() => {
    const form = document.getElementById(formId);
    if (!(form instanceof HTMLFormElement)) return;
    const keep = (event: Event) => {
      const target = event.target;
      if (!(target instanceof Element) || (target as HTMLInputElement).form !== form) return;
      if (event.type !== FILES_KEPT) writeDraft(key, fieldsOf(form));
      else if (keepsFiles) void keepFiles(key, pickedFilesOf(form) ?? []);
    };
    for (const type of ["input", "change", FILES_KEPT]) document.addEventListener(type, keep);
    return () => {
      for (const type of ["input", "change", FILES_KEPT]) document.removeEventListener(type, keep);
    };
  }, [formId, key, keepsFiles]);

  // The server took it: its answer moves the person elsewhere (a refusal stays on the form).
  const tookIt =
    navigation.state === "loading" &&
    navigation.formMethod !== undefined &&
    navigation.location.pathname !== location.pathname;
  // Also called by an upload sent with progress, which leaves by a page load (upload-progress.tsx).
  const forget = useCallback(
    () => Promise.all([forgetDraft(key), forgetRefusedSavesOf(key)]),
    [key],
  );
  useEffect(() => {
    if (tookIt) void forget();
  }, [tookIt, forget]);

  /**
   * Call in the form's submit handler once the form is valid: with no connection it stops the
   * submit and keeps it, to go by itself once the browser is back online. True when it did.
   */
  const waitForNetwork = useCallback(
    (event: FormEvent<HTMLFormElement>) => {
      if (navigator.onLine) return false;
      event.preventDefault();
      const form = event.currentTarget;
      if (pendingIn) {
        const submitter = (event.nativeEvent as SubmitEvent).submitter;
        writeDraft(key, fieldsOf(form), { waitingToSend: true });
        void keepFiles(key, pickedFilesOf(form) ?? [])
          .then(() =>
            keepPendingSave(form, submitter, { folderId: pendingIn.folderId, draftKey: key }),
          )
          .then(() => {
            // Back to the folder behind the sheet, where the save shows as pending; a page
            // with no folder behind it (Add) empties its form for the next one.
            const folder = `/folders/${pendingIn.folderId}`;
            if (matches.some((match) => match.pathname === folder)) {
              navigate(folder, { preventScrollReset: true });
            } else {
              form.reset();
              setState("kept-on-phone");
            }
          });
        return true;
      }
      writeDraft(key, fieldsOf(form));
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
    [key, pendingIn, matches, navigate],
  );

  const discard = useCallback(() => {
    void forgetDraft(key);
    const form = document.getElementById(formId);
    if (form instanceof HTMLFormElement) form.reset();
    setState("none");
  }, [formId, key]);

  return { state, waitForNetwork, discard, forget };
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
      {state === "kept-on-phone" ? (
        "Saved on this phone, uploads when you're back online."
      ) : state === "waiting-for-network" ? (
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
    if (!signedIn) void forgetEverythingKept();
  }, [signedIn]);
}
