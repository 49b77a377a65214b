import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * The one e-mail a new recipient gets before any issue of a folder
 * (docs/decisions/0208-a-welcome-before-the-first-issue.md): who added them,
 * to what, and when the next issue comes, with one link for each answer.
 * Both links open a page that records nothing until its button is pressed.
 * Names are React text, so they are escaped.
 */
export type WelcomeInput = {
  senderName: string;
  senderEmail: string;
  folderName: string;
  /** The name the sender gave the recipient in the folder ("Dad"); null when none. */
  recipientName: string | null;
  /** The folder's next send, in the sender's zone, "Mon 7 Dec"; null when none is planned. */
  nextIssueOn: string | null;
  /** Whether an issue of the folder already reached this recipient: then it is not their first. */
  alreadySent: boolean;
  yesUrl: string;
  noUrl: string;
};

/** When the recipient's next issue comes, as the welcome and its page say it. */
export type NextIssue = Pick<WelcomeInput, "nextIssueOn" | "alreadySent">;

/**
 * "The first issue comes on Mon 7 Dec.", or "The next issue …" once one went
 * to them (a welcome that waited for the sender's verification or a limit);
 * "… when Ada sends it." when no send is planned.
 */
export function nextIssueSentence(senderName: string, { nextIssueOn, alreadySent }: NextIssue) {
  const which = alreadySent ? "next" : "first";
  return nextIssueOn
    ? `The ${which} issue comes on ${nextIssueOn}.`
    : `The ${which} issue comes when ${senderName} sends it.`;
}

/** `Ada Lovelace added you to "Family news"`. Plain words, no capitals. */
export function welcomeSubject({ senderName, folderName }: WelcomeInput) {
  return `${senderName} added you to "${folderName.replace(/\s+/g, " ").trim()}"`;
}

export function Welcome(input: WelcomeInput) {
  const { senderName, senderEmail, folderName, recipientName, alreadySent, yesUrl, noUrl } = input;
  return (
    <EmailLayout
      title={welcomeSubject(input)}
      reason={`You receive this e-mail because ${senderName} (${senderEmail}) added your address to "${folderName}" on Thoughtfully. ${alreadySent ? "It is the only welcome you get." : "It is the only one you get before the first issue."}`}
    >
      <h1 className="title">
        {senderName} added you to {folderName}
      </h1>
      <p className="paragraph">{greeting(recipientName)}</p>
      <p className="paragraph">
        {senderName} saves links, photos and notes for you in "{folderName}" and sends them to you
        as a letter by e-mail. {nextIssueSentence(senderName, input)}
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
