/**
 * Why Send Now cannot send this folder now, in the words the button shows
 * beside it; null when it can. The same rules as sendNow() in
 * sending.server.ts, which stays the one that enforces them.
 */
export function sendNowBlocker(folder: {
  itemCount: number;
  isUnsubscribed: boolean;
  isPaused: boolean;
  pauseReason: string | null;
  senderVerified: boolean;
  /** The sender's sending is paused (docs/decisions/0125-paused-senders-sends-are-held.md). */
  senderPaused?: boolean;
}) {
  if (!folder.senderVerified) return "Confirm your e-mail address to send.";
  if (folder.senderPaused) return "Your sending is paused: see why at the top of the page.";
  if (folder.isUnsubscribed) return "Every recipient has unsubscribed.";
  if (folder.pauseReason === "storage_exceeded") {
    return "This folder is over its size limit: remove something to send it.";
  }
  if (folder.isPaused || folder.pauseReason) return "Delivery is paused: re-start it to send.";
  if (folder.itemCount === 0) return "Nothing to send yet: add something first.";
  return null;
}

/** "Mum", "Mum and Dad", "Mum, Dad and Ann": the way the question names the recipients. */
export function listNames(names: string[]) {
  return new Intl.ListFormat("en-GB", { type: "conjunction" }).format(names);
}
