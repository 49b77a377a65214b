import { EmailButton, EmailLayout } from "#emails/layout";

export function resubscribeRequestSubject(senderName: string, folderName: string) {
  return `${senderName} would like to keep sharing "${folderName}" with you`;
}

/**
 * The one e-mail a sender can have sent to a recipient who unsubscribed (at
 * most once per 30 days per folder). Ignoring it changes nothing; only the
 * button on the page the link opens re-subscribes.
 */
export function ResubscribeRequest({
  senderName,
  folderName,
  resubscribeUrl,
}: {
  senderName: string;
  folderName: string;
  resubscribeUrl: string;
}) {
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
        {senderName} sends you through Thoughtfully. {senderName} would like to keep sharing it with
        you. If you would like that too, re-subscribe with the button below.
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
    </EmailLayout>
  );
}
