import { Link, useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";
import { readActionAnswer, singleFetchUrl } from "~/components/items/upload-progress";
import {
  forgetDraft,
  PENDING_SAVES_CHANGED,
  type PendingSave,
  pendingSave,
  pendingSaves,
  putPendingSave,
  releaseDraft,
  removePendingSave,
} from "~/utils/kept-on-device";

/**
 * Saves made with no signal wait in this browser, files and all, until the server has them: the
 * folder shows each as pending, and whichever page is open sends them once the connection is
 * back, to the same action with the same one-time key as the sheet itself
 * (docs/decisions/0216-saves-wait-on-the-phone.md).
 */

/** Without Web Locks, another page's send quiet this long is taken to have died with its page. */
const SENDING_GIVEN_UP_MS = 2 * 60 * 1000;
/** Between tries while the browser says it is online but the server did not answer. */
const RETRY_EVERY_MS = 30 * 1000;

/** Keeps a form submitted with no connection, as the browser would have sent it. */
export async function keepPendingSave(
  form: HTMLFormElement,
  submitter: HTMLElement | null,
  { folderId, draftKey }: { folderId: number; draftKey: string },
) {
  const fields: PendingSave["fields"] = [];
  new FormData(form, submitter).forEach((value, name) => {
    fields.push([name, value]);
  });
  const filled = (name: string) => {
    const value = fields.find(([field]) => field === name)?.[1];
    return typeof value === "string" && value.trim() ? value.trim() : undefined;
  };
  await putPendingSave({
    id: filled("oneTimeKey") ?? crypto.randomUUID(),
    folderId,
    action: new URL(form.action, window.location.href).pathname,
    sheet: window.location.pathname,
    draftKey,
    title: filled("title") ?? filled("urls[0]") ?? "Untitled",
    keptAt: Date.now(),
    state: "waiting",
    fields,
  });
}

/** The sheet, opened again for a refused save, got its own submit through: that save is done with. */
export async function forgetRefusedSavesOf(draftKey: string) {
  for (const save of await pendingSaves()) {
    if (save.draftKey === draftKey && save.state === "refused") await removePendingSave(save.id);
  }
}

/** True while a save from this sheet waits to be sent: its typing is not offered again meanwhile. */
export async function isWaitingToSend(draftKey: string) {
  return (await pendingSaves()).some(
    (save) => save.draftKey === draftKey && save.state !== "refused",
  );
}

type Outcome = "saved" | "refused" | "try-later";

async function send(save: PendingSave): Promise<Outcome> {
  const body = new FormData();
  for (const [name, value] of save.fields) body.append(name, value);
  let response: Response;
  try {
    response = await fetch(singleFetchUrl(save.action), { method: "POST", body });
  } catch {
    return "try-later";
  }
  // Busy, or restarting: the same save with the same key, later.
  if (response.status >= 500 || response.status === 429) return "try-later";
  const answer = await readActionAnswer(response).catch(() => null);
  if (answer && "redirect" in answer) {
    // An ended session sends the form to sign in: nothing was saved.
    const to = new URL(answer.redirect, window.location.href).pathname;
    return to.startsWith("/login") ? "refused" : "saved";
  }
  return "refused";
}

/**
 * Runs `sendOne` unless another live page is sending that save already. A Web Lock is let go
 * when its page goes, so a send that died with its page (closed, or left mid-answer) is taken up
 * at once by the next page; the one-time key keeps it saved once. Where Web Locks are missing, a
 * send another page started is left to it for a while.
 */
function sendingAlone(id: string, sendOne: (alone: boolean) => Promise<Outcome | "skipped">) {
  if (typeof navigator.locks?.request !== "function") return sendOne(false);
  return navigator.locks.request(
    `thoughtfully:pending-save:${id}`,
    { ifAvailable: true },
    (lock) => (lock ? sendOne(true) : "skipped"),
  );
}

/**
 * Sends what waits on this phone, one save at a time, when a page opens and whenever the
 * connection comes back. Mounted once, on every page of a signed-in sender.
 */
export function PendingSavesSender() {
  const { revalidate } = useRevalidator();
  useEffect(() => {
    let running = false;
    async function sendOne(id: string, alone: boolean): Promise<Outcome | "skipped"> {
      const save = await pendingSave(id);
      if (!save || save.state === "refused") return "skipped";
      const sentElsewhere =
        !alone && save.sendingSince && Date.now() - save.sendingSince < SENDING_GIVEN_UP_MS;
      if (sentElsewhere) return "skipped";
      await putPendingSave({ ...save, state: "sending", sendingSince: Date.now() });
      const outcome = await send(save);
      if (outcome === "saved") {
        await removePendingSave(id);
        await forgetDraft(save.draftKey);
        revalidate();
        return outcome;
      }
      if (outcome === "refused") releaseDraft(save.draftKey);
      await putPendingSave({
        ...save,
        state: outcome === "refused" ? "refused" : "waiting",
        sendingSince: undefined,
      });
      return outcome;
    }
    async function sendWaiting() {
      if (running || !navigator.onLine) return;
      running = true;
      try {
        for (const { id } of await pendingSaves()) {
          const outcome = await sendingAlone(id, (alone) => sendOne(id, alone));
          if (outcome === "try-later") break;
        }
      } finally {
        running = false;
      }
    }
    void sendWaiting();
    window.addEventListener("online", sendWaiting);
    const retry = window.setInterval(sendWaiting, RETRY_EVERY_MS);
    return () => {
      window.removeEventListener("online", sendWaiting);
      window.clearInterval(retry);
    };
  }, [revalidate]);
  return null;
}

function usePendingSaves(folderId: number) {
  const [saves, setSaves] = useState<PendingSave[]>([]);
  useEffect(() => {
    let current = true;
    const read = () =>
      pendingSaves().then((all) => {
        if (current) setSaves(all.filter((save) => save.folderId === folderId));
      });
    void read();
    window.addEventListener(PENDING_SAVES_CHANGED, read);
    return () => {
      current = false;
      window.removeEventListener(PENDING_SAVES_CHANGED, read);
    };
  }, [folderId]);
  return saves;
}

const SAID: Record<PendingSave["state"], string> = {
  waiting: "Saved on this phone, uploads when you're back online.",
  sending: "Uploading…",
  refused: "Not saved. Open it to check it and save it again.",
};

/** The folder's saves still on this phone, above what the server has. */
export function PendingSavesList({ folderId }: { folderId: number }) {
  const saves = usePendingSaves(folderId);
  if (saves.length === 0) return null;
  return (
    <section aria-label="Waiting on this phone" className="mb-3">
      <ol className="space-y-3">
        {saves.map((save) => (
          <li
            key={save.id}
            className="rounded-2xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950"
          >
            <p className="font-medium">{save.title}</p>
            <p role="status" className="mt-1">
              {SAID[save.state]}
            </p>
            {save.state === "refused" ? (
              <div className="mt-3 flex flex-wrap gap-2">
                <Link to={save.sheet} className="btn-secondary">
                  Open it
                </Link>
                <button
                  type="button"
                  className="btn-secondary"
                  onClick={() => {
                    void removePendingSave(save.id).then(() => forgetDraft(save.draftKey));
                  }}
                >
                  Remove
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
