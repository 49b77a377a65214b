import { EmailButton, EmailLayout, greeting } from "#emails/layout";

export const accountExistsSubject = "You already have a Thoughtfully account";

/**
 * Sent when someone signs up with an address that already has an account:
 * the sign-up page answers as usual (it must not reveal who has an account),
 * and the owner learns about it here.
 */
export function AccountExists({
  firstName,
  loginUrl,
  resetUrl,
}: {
  firstName?: string | null;
  loginUrl: string;
  resetUrl: string;
}) {
  return (
    <EmailLayout
      title={accountExistsSubject}
      reason="You receive this e-mail because someone tried to sign up for Thoughtfully with this address."
    >
      <h1 className="title">You already have an account</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        Someone, probably you, just tried to create a Thoughtfully account with this e-mail address.
        You already have one, so nothing new was created.
      </p>
      <EmailButton href={loginUrl}>Log in</EmailButton>
      <p className="muted">
        Forgot your password? Reset it here:{" "}
        <a className="link" href={resetUrl}>
          {resetUrl}
        </a>
      </p>
      <p className="muted">If this wasn't you, you can ignore this e-mail.</p>
    </EmailLayout>
  );
}
