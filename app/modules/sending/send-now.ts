import type { WaitingFor } from "~/modules/items/needs-note";

/** Send Now on a folder whose every item waits for a note (docs/decisions/0134-quick-saves-wait-for-a-note.md). */
export const EVERY_ITEM_WAITS =
  "Every item here needs a note first: add a comment or a question to one to send it.";

/** Send Now on a folder whose every item waits, some for a video or a file (docs/decisions/0252-what-waits-is-named-before-a-send.md). */
export const NOTHING_READY =
  "Nothing here is ready to send yet: each item waits for its note, its video or its file.";

/** Why Send Now has nothing to send when every unsent item waits. */
export function everyItemWaits(waitingFor: WaitingFor[]) {
  return waitingFor.every((reason) => reason === "note") ? EVERY_ITEM_WAITS : NOTHING_READY;
}

/** Send Now beside the folder's send under way, whose state the folder page shows. */
export const SEND_UNDER_WAY = "Send Now works again once this send is done.";

/**
 * Why Send Now cannot send this folder now, in the words the button shows
 * beside it; null when it can. The same rules as sendNow() in
 * sending.server.ts, which stays the one that enforces them.
 */
export function sendNowBlocker(folder: {
  itemCount: number;
  /** Of those, the items the next send leaves behind, and what each waits for. */
  waiting?: WaitingFor[];
  isUnsubscribed: boolean;
  isPaused: boolean;
  pauseReason: string | null;
  senderVerified: boolean;
  /** The sender's sending is paused (docs/decisions/0125-paused-senders-sends-are-held.md). */
  senderPaused?: boolean;
  /** The folder's send still under way (its copies waiting, or going now): one at a time. */
  sendUnderWay?: boolean;
}) {
  if (!folder.senderVerified) return "Confirm your e-mail address to send.";
  if (folder.senderPaused) return "Your sending is paused: see why at the top of the page.";
  if (folder.isUnsubscribed) return "Every recipient has unsubscribed.";
  if (folder.pauseReason === "storage_exceeded") {
    return "This folder is over its size limit: remove something to send it.";
  }
  if (folder.isPaused || folder.pauseReason) return "Delivery is paused: re-start it to send.";
  if (folder.sendUnderWay) return SEND_UNDER_WAY;
  if (folder.itemCount === 0) return "Nothing to send yet: add something first.";
  const waiting = folder.waiting ?? [];
  if (folder.itemCount === waiting.length) return everyItemWaits(waiting);
  return null;
}

/** "Mum", "Mum and Dad", "Mum, Dad and Ann": the way the question names the recipients. */
export function listNames(names: string[]) {
  return new Intl.ListFormat("en-GB", { type: "conjunction" }).format(names);
}
