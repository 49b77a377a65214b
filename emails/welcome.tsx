import { EmailButton, EmailLayout } from "#emails/layout";

/**
 * The one e-mail a new recipient gets before any issue of a folder
 * (docs/decisions/0208-a-welcome-before-the-first-issue.md): who added them,
 * to what, and when the first issue comes, with one link for each answer.
 * Both links open a page that records nothing until its button is pressed.
 * Names are React text, so they are escaped.
 */
export type WelcomeInput = {
  senderName: string;
  senderEmail: string;
  folderName: string;
  /** The first issue's day in the sender's zone, "Mon 7 Dec"; null when the folder is paused. */
  firstIssueOn: string | null;
  yesUrl: string;
  noUrl: string;
};

/** `Ada Lovelace added you to "Family news"`. Plain words, no capitals. */
export function welcomeSubject({ senderName, folderName }: WelcomeInput) {
  return `${senderName} added you to "${folderName.replace(/\s+/g, " ").trim()}"`;
}

export function Welcome(input: WelcomeInput) {
  const { senderName, senderEmail, folderName, firstIssueOn, yesUrl, noUrl } = input;
  return (
    <EmailLayout
      title={welcomeSubject(input)}
      reason={`You receive this e-mail because ${senderName} (${senderEmail}) added your address to "${folderName}" on Thoughtfully. It is the only one you get before the first issue.`}
    >
      <h1 className="title">
        {senderName} added you to {folderName}
      </h1>
      <p className="paragraph">Hi,</p>
      <p className="paragraph">
        {senderName} saves links, photos and notes for you in "{folderName}" and sends them to you
        as a letter by e-mail.{" "}
        {firstIssueOn
          ? `The first issue comes on ${firstIssueOn}.`
          : `The first issue comes when ${senderName} sends it.`}
      </p>
      <p className="paragraph">Would you like it?</p>
      <EmailButton href={yesUrl}>Sounds lovely</EmailButton>
      <p className="paragraph">
        <a className="link" href={noUrl}>
          Not for me
        </a>
      </p>
      <p className="muted">
        "Not for me" stops every issue of "{folderName}" at once. If you do nothing, the issues
        come, and each one has a link to stop them.
      </p>
    </EmailLayout>
  );
}
