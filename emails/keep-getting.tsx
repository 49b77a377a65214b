import { EmailButton, EmailLayout } from "#emails/layout";
import type { AskBackProps } from "#emails/resubscribe-request";

export function keepGettingSubject(folderName: string) {
  return `Would you like to keep getting "${folderName.replace(/\s+/g, " ").trim()}"?`;
}

/**
 * The one e-mail a sender may have sent after a recipient's mailbox bounced
 * (docs/decisions/0211-one-way-back-after-a-bounce.md): mail to the address
 * stopped; only the button on the page its link opens starts it again.
 * Ignoring it changes nothing.
 */
export function KeepGetting({
  senderName,
  senderEmail,
  folderName,
  resubscribeUrl,
  dontAskAgainUrl,
}: AskBackProps) {
  const subject = keepGettingSubject(folderName);
  return (
    <EmailLayout
      title={subject}
      reason={`You receive this e-mail because ${senderName} asked Thoughtfully to check that "${folderName}" still reaches you. It is the only one you get unless you say yes.`}
    >
      <h1 className="title">{subject}</h1>
      <p className="paragraph">Hi,</p>
      <p className="paragraph">
        {senderName} ({senderEmail}) sends you "{folderName}", a letter of links, notes and photos,
        through Thoughtfully. An earlier one could not be delivered to this address, so nothing more
        was sent. If you would like to keep getting it, press the button below.
      </p>
      <EmailButton href={resubscribeUrl}>Keep getting it</EmailButton>
      <p className="muted">
        If you'd rather not, ignore this e-mail: nothing more comes from "{folderName}".
      </p>
      <p className="muted">
        To never be asked again, by {senderName} or anyone else using Thoughtfully:{" "}
        <a className="link" href={dontAskAgainUrl}>
          Don't ask me again
        </a>
      </p>
    </EmailLayout>
  );
}
