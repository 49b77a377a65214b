import { EmailButton, EmailLayout, greeting } from "#emails/layout";

export const verifyEmailSubject = "Confirm your e-mail for Thoughtfully";

export function VerifyEmail({
  firstName,
  verifyUrl,
}: {
  firstName?: string | null;
  verifyUrl: string;
}) {
  return (
    <EmailLayout
      title={verifyEmailSubject}
      reason="You receive this e-mail because this address was used to sign up for Thoughtfully."
    >
      <h1 className="title">Confirm your e-mail address</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        Thank you for signing up for Thoughtfully. Please confirm that this is your e-mail address
        so we can keep your account safe.
      </p>
      <EmailButton href={verifyUrl}>Confirm e-mail address</EmailButton>
      <p className="muted">If the button does not work, copy this link into your browser:</p>
      <p className="muted">
        <a className="link" href={verifyUrl}>
          {verifyUrl}
        </a>
      </p>
      <p className="muted">This link is valid for 24 hours.</p>
      <p className="muted">
        If you did not sign up for Thoughtfully, you can ignore this e-mail: nothing happens without
        your confirmation.
      </p>
    </EmailLayout>
  );
}
