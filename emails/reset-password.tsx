import { EmailButton, EmailLayout, greeting } from "#emails/layout";

export const resetPasswordSubject = "Reset your Thoughtfully password";

export function ResetPassword({
  firstName,
  resetUrl,
}: {
  firstName?: string | null;
  resetUrl: string;
}) {
  return (
    <EmailLayout
      title={resetPasswordSubject}
      reason="You receive this e-mail because someone asked to reset the password of the Thoughtfully account with this address."
    >
      <h1 className="title">Reset your password</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        We received a request to reset the password of your Thoughtfully account. Choose a new
        password with the button below.
      </p>
      <EmailButton href={resetUrl}>Choose a new password</EmailButton>
      <p className="muted">If the button does not work, copy this link into your browser:</p>
      <p className="muted">
        <a className="link" href={resetUrl}>
          {resetUrl}
        </a>
      </p>
      <p className="muted">
        This link is valid for one hour and works only once. After that, you can ask for a new one.
      </p>
      <p className="muted">
        If you did not ask to reset your password, you can ignore this e-mail: your password stays
        as it is.
      </p>
    </EmailLayout>
  );
}
