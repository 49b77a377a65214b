import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/** A saved item as the answer names it (app/modules/save-by-email/save-by-email.server.ts). */
export type SavedByEmailItem = {
  type: "link" | "photo" | "file" | "musing" | "video";
  title: string;
  /** The photos or files it holds (0 for a link or a musing). */
  files: number;
  /** A link, photo or file without a comment or a question is not sent until it has one. */
  waitsForNote: boolean;
};

/**
 * The one answer to a message saved by e-mail (docs/decisions/0158-save-by-email.md),
 * sent only to the account's own verified address and only for mail that
 * passed the sender checks: what was saved where, which of it goes out with
 * the folder's next issue and which waits for a note, and why
 * (docs/decisions/0197-one-message-one-thought.md); or why nothing was saved.
 */
export function SavedByEmail({
  firstName,
  folderName,
  items,
  problem,
  skipped,
  folderUrl,
}: {
  firstName?: string | null;
  folderName: string;
  /** What was saved, in the folder's order; empty when nothing was. */
  items: SavedByEmailItem[];
  /** Why nothing was saved; null when the message was saved. */
  problem: string | null;
  /** Attachments that are not photos, videos, PDFs or Word files, by name. */
  skipped: string[];
  folderUrl: string;
}) {
  const subject = savedByEmailSubject(folderName, items.length, problem);
  const going = items.filter((item) => !item.waitsForNote);
  const waiting = items.filter((item) => item.waitsForNote);
  return (
    <EmailLayout
      title={subject}
      reason="You receive this e-mail because you sent a message to one of your folders' addresses."
    >
      <h1 className="title">{subject}</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      {problem ? <p className="paragraph">Nothing from your message was saved. {problem}</p> : null}
      {going.length > 0 ? (
        <p className="paragraph">
          {going.length === 1 ? "Goes" : "Go"} out with the next issue of {folderName}:{" "}
          {namedItems(going)}.
        </p>
      ) : null}
      {waiting.length > 0 ? (
        <p className="paragraph">
          {waiting.length === 1 ? "Waits" : "Wait"} for a note: {namedItems(waiting)}. Your message
          had no words of yours to go with {waiting.length === 1 ? "it" : "them"}, and a link, photo
          or file is sent only with a comment or a question. Add one from{" "}
          {waiting.length === 1 ? "its" : "each one's"} Edit in {folderName}.
        </p>
      ) : null}
      {items.some((item) => item.type === "video") ? (
        <p className="paragraph">
          A video is prepared for sending first, which takes a minute or two; one that is not ready
          by the send waits for the next issue, and you are told.
        </p>
      ) : null}
      {skipped.length > 0 ? (
        <p className="paragraph">
          Not saved, as only photos, videos, PDFs and Word files can be: {skipped.join(", ")}.
        </p>
      ) : null}
      <EmailButton href={folderUrl}>Open {folderName}</EmailButton>
    </EmailLayout>
  );
}

/** "the link “Soup”", "the photos “Soup (2)”". */
function namedItem(item: SavedByEmailItem) {
  const kind = item.files > 1 ? `${item.type}s` : item.type;
  return `the ${kind} “${item.title}”`;
}

/** "a", "a and b", "a, b and c". */
export function namedItems(items: SavedByEmailItem[]) {
  const names = items.map(namedItem);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
}

export function savedByEmailSubject(
  folderName: string,
  savedCount: number,
  problem: string | null,
) {
  if (problem) return `Nothing saved to ${folderName}`;
  return `Saved ${savedCount} ${savedCount === 1 ? "item" : "items"} to ${folderName}`;
}
