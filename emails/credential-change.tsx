import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * Told to the owner whenever a way into the account is added or removed
 * (docs/decisions/0109-credential-change-notices.md): what, when, from where,
 * and a link that undoes it.
 */
export function CredentialChange({
  firstName,
  subject,
  summary,
  when,
  where,
  undoUrl,
  undoLabel,
}: {
  firstName?: string | null;
  subject: string;
  summary: string;
  when: string;
  where: string;
  undoUrl: string;
  undoLabel: string;
}) {
  return (
    <EmailLayout
      title={subject}
      reason="You receive this e-mail because the way into the Thoughtfully account with this address changed. These notices cannot be turned off."
    >
      <h1 className="title">{subject}</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">{summary}</p>
      <p className="paragraph">
        When: {when}
        <br />
        From: {where}
      </p>
      <p className="paragraph">If this was you, there is nothing to do.</p>
      <p className="paragraph">If it was not you:</p>
      <EmailButton href={undoUrl}>{undoLabel}</EmailButton>
      <p className="muted">If the button does not work, copy this link into your browser:</p>
      <p className="muted">
        <a className="link" href={undoUrl}>
          {undoUrl}
        </a>
      </p>
      <p className="muted">The link opens a page with one button; it works for 7 days.</p>
    </EmailLayout>
  );
}
