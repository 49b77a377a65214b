import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * Told to every admin when a sender's mail harmed delivery and their sending
 * paused (docs/decisions/0124-senders-reputation-limits.md): who, why, and
 * where to look and lift it.
 */
export function SenderPaused({
  firstName,
  senderEmail,
  explanation,
  reviewUrl,
}: {
  firstName?: string | null;
  senderEmail: string;
  explanation: string;
  reviewUrl: string;
}) {
  return (
    <EmailLayout
      title={senderPausedSubject(senderEmail)}
      reason="You receive this e-mail because you are an admin of Thoughtfully."
    >
      <h1 className="title">A sender's sending is paused</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        Nothing from {senderEmail} is sent until an admin lifts the pause. {explanation}
      </p>
      <EmailButton href={reviewUrl}>Review the sender</EmailButton>
      <p className="muted">
        Their scheduled issues are held, not lost: lifting the pause sends them.
      </p>
    </EmailLayout>
  );
}

export function senderPausedSubject(senderEmail: string) {
  return `Sending paused for ${senderEmail}`;
}
