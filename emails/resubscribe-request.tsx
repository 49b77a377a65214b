import { EmailButton, EmailLayout } from "#emails/layout";

export function resubscribeRequestSubject(senderName: string, folderName: string) {
  return `${senderName} would like to keep sharing "${folderName}" with you`;
}

/** What an e-mail asking a recipient back says: who asks, for which folder, and its two links. */
export type AskBackProps = {
  senderName: string;
  senderEmail: string;
  folderName: string;
  resubscribeUrl: string;
  dontAskAgainUrl: string;
};

/**
 * The one e-mail a sender can have sent to a recipient who unsubscribed (at
 * most once per 30 days per sender and address). It names who asks, by name
 * and address. Ignoring it changes nothing; only the button on the page a
 * link opens re-subscribes, or stops every future request to the address.
 */
export function ResubscribeRequest({
  senderName,
  senderEmail,
  folderName,
  resubscribeUrl,
  dontAskAgainUrl,
}: AskBackProps) {
  const subject = resubscribeRequestSubject(senderName, folderName);
  return (
    <EmailLayout
      title={subject}
      reason={`You receive this e-mail because ${senderName} asked Thoughtfully to invite you back to "${folderName}". You unsubscribed earlier, so this is the only message you get.`}
    >
      <h1 className="title">{subject}</h1>
      <p className="paragraph">Hi,</p>
      <p className="paragraph">
        You unsubscribed from "{folderName}", the collection of links, notes and photos that{" "}
        {senderName} ({senderEmail}) sends you through Thoughtfully. {senderName} would like to keep
        sharing it with you. If you would like that too, re-subscribe with the button below.
      </p>
      <EmailButton href={resubscribeUrl}>Re-subscribe</EmailButton>
      <p className="muted">If the button does not work, copy this link into your browser:</p>
      <p className="muted">
        <a className="link" href={resubscribeUrl}>
          {resubscribeUrl}
        </a>
      </p>
      <p className="muted">
        If you'd rather not, ignore this e-mail — nothing changes and you stay unsubscribed.
      </p>
      <p className="muted">
        To never be asked to re-subscribe again, by {senderName} or anyone else using Thoughtfully:{" "}
        <a className="link" href={dontAskAgainUrl}>
          Don't ask me again
        </a>
      </p>
    </EmailLayout>
  );
}
