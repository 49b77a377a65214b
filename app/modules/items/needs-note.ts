import type { ItemType } from "./item-validation";

/**
 * A link, photo or file goes out with a comment or a question: that is what
 * makes the newsletter thoughtful. A quick save may leave it for later; the
 * item then "needs a note" and is held back from sending until it has one
 * (docs/decisions/0134-quick-saves-wait-for-a-note.md). Derived from the
 * item's own fields, so nothing else records it.
 */
export type NoteFields = {
  type: ItemType;
  addComment: boolean;
  commentText: string | null;
  askQuestion: boolean;
  questionText: string | null;
};

export function needsNote(item: NoteFields) {
  if (item.type === "musing") return false;
  const hasComment = item.addComment && Boolean(item.commentText);
  const hasQuestion = item.askQuestion && Boolean(item.questionText);
  return !hasComment && !hasQuestion;
}

/** What keeps an unsent item out of the next send: its note, its video being prepared, a missing file. */
export type WaitingFor = "note" | "video" | "file";

/** What the marker says, on the dashboard and before a send. */
export const NEEDS_NOTE = "Needs a note";
export const NEEDS_NOTE_HINT =
  "Held back from sending until it has a comment or a question: Edit to add one.";

/** Said when a quick save keeps its note for later. */
export const WAITS_FOR_NOTE =
  "Saved. It needs a note (a comment or a question) before it is sent: add one from its Edit.";
