import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * The one answer to a message saved by e-mail (docs/decisions/0158-save-by-email.md),
 * sent only to the account's own verified address and only for mail that
 * passed the sender checks: what was saved where, or why nothing was.
 */
export function SavedByEmail({
  firstName,
  folderName,
  savedCount,
  problem,
  skipped,
  folderUrl,
}: {
  firstName?: string | null;
  folderName: string;
  savedCount: number;
  /** Why nothing was saved; null when the message was saved. */
  problem: string | null;
  /** Attachments that are not photos, PDFs or Word files, by name. */
  skipped: string[];
  folderUrl: string;
}) {
  return (
    <EmailLayout
      title={savedByEmailSubject(folderName, savedCount, problem)}
      reason="You receive this e-mail because you sent a message to one of your folders' addresses."
    >
      <h1 className="title">{savedByEmailSubject(folderName, savedCount, problem)}</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      {problem ? (
        <p className="paragraph">Nothing from your message was saved. {problem}</p>
      ) : (
        <p className="paragraph">
          Your message is in {folderName} and goes out with its next issue.
        </p>
      )}
      {skipped.length > 0 ? (
        <p className="paragraph">
          Not saved, as only photos, PDFs and Word files can be: {skipped.join(", ")}.
        </p>
      ) : null}
      <EmailButton href={folderUrl}>Open {folderName}</EmailButton>
    </EmailLayout>
  );
}

export function savedByEmailSubject(
  folderName: string,
  savedCount: number,
  problem: string | null,
) {
  if (problem) return `Nothing saved to ${folderName}`;
  return `Saved ${savedCount} ${savedCount === 1 ? "item" : "items"} to ${folderName}`;
}
