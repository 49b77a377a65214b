import { clear, createStore, del, get, set, values } from "idb-keyval";

/**
 * What this browser keeps for a sender until the server has it
 * (docs/decisions/0200-typing-kept-on-the-device.md, 0216-saves-wait-on-the-phone.md): a form's
 * typing in localStorage, its picked files and the saves made with no signal in IndexedDB
 * (localStorage holds strings only). Every function here is quiet when storage is refused (a
 * private window): the forms still work, unkept.
 */
export type KeptField = { name: string; value: string; checked?: boolean };
export type KeptDraft = {
  savedAt: number;
  fields: KeptField[];
  /** Submitted with no signal: the draft belongs to a pending save until it is sent or refused. */
  waitingToSend?: boolean;
};

export type PendingSave = {
  /** The form's one-time key: the server saves it once however often it is sent. */
  id: string;
  folderId: number;
  /** Where the form posts. */
  action: string;
  /** The sheet it came from; its draft on the device comes back there if the save is refused. */
  sheet: string;
  draftKey: string;
  title: string;
  keptAt: number;
  state: "waiting" | "sending" | "refused";
  /** When a page started sending it: another tab leaves it alone meanwhile. */
  sendingSince?: number;
  fields: Array<[string, string | File]>;
};

const DRAFT_PREFIX = "thoughtfully:draft:";
/** A draft older than this is forgotten rather than offered. */
const KEPT_FOR_MS = 7 * 24 * 60 * 60 * 1000;
/** Dispatched on window whenever the pending saves change, for the lists that show them. */
export const PENDING_SAVES_CHANGED = "thoughtfully:pending-saves";

// idb-keyval opens each store as a database of its own.
const filesStore = () => createStore("thoughtfully-picked-files", "files");
const pendingStore = () => createStore("thoughtfully-pending-saves", "saves");

export function draftKeyOf(pathname: string) {
  return `${DRAFT_PREFIX}${pathname}`;
}

export function readDraft(key: string): KeptDraft | null {
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

export function writeDraft(
  key: string,
  fields: KeptField[],
  { waitingToSend }: { waitingToSend?: boolean } = {},
) {
  try {
    const draft: KeptDraft = { savedAt: Date.now(), fields, waitingToSend };
    localStorage.setItem(key, JSON.stringify(draft));
  } catch {
    // Storage full or refused.
  }
}

/** A pending save was refused: its draft is the sheet's again, to fix and send. */
export function releaseDraft(key: string) {
  const draft = readDraft(key);
  if (draft?.waitingToSend) writeDraft(key, draft.fields);
}

export async function keepFiles(key: string, files: File[]) {
  try {
    if (files.length === 0) await del(key, filesStore());
    else await set(key, files, filesStore());
  } catch {
    // As above.
  }
}

export async function keptFiles(key: string): Promise<File[]> {
  try {
    return (await get<File[]>(key, filesStore())) ?? [];
  } catch {
    return [];
  }
}

/** A form's typing and files, once the server has them or the sender starts over. */
export async function forgetDraft(key: string) {
  try {
    localStorage.removeItem(key);
    await del(key, filesStore());
  } catch {
    // As above.
  }
}

export async function pendingSaves(): Promise<PendingSave[]> {
  try {
    return (await values<PendingSave>(pendingStore())).sort((a, b) => a.keptAt - b.keptAt);
  } catch {
    return [];
  }
}

export async function pendingSave(id: string) {
  return get<PendingSave>(id, pendingStore());
}

export async function putPendingSave(save: PendingSave) {
  await set(save.id, save, pendingStore());
  window.dispatchEvent(new Event(PENDING_SAVES_CHANGED));
}

export async function removePendingSave(id: string) {
  await del(id, pendingStore());
  window.dispatchEvent(new Event(PENDING_SAVES_CHANGED));
}

/** Signed out, this browser keeps nobody's typing, files or saves: the next person sees none. */
export async function forgetEverythingKept() {
  try {
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith(DRAFT_PREFIX)) localStorage.removeItem(key);
    }
    await clear(filesStore());
    await clear(pendingStore());
  } catch {
    // Storage refused: there is nothing kept either.
  }
}
