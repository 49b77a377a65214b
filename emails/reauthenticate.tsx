import { EmailButton, EmailLayout, greeting } from "#emails/layout";

export const reauthenticateSubject = "Confirm it is you on Thoughtfully";

/** The link that re-verifies a signed-in session (docs/decisions/0107-reauthentication-window.md). */
export function Reauthenticate({
  firstName,
  confirmUrl,
}: {
  firstName?: string | null;
  confirmUrl: string;
}) {
  return (
    <EmailLayout
      title={reauthenticateSubject}
      reason="You receive this e-mail because someone signed in to the Thoughtfully account with this address asked to confirm who they are."
    >
      <h1 className="title">Confirm it is you</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        Before a change to how your account is signed in to, we check that it is really you. Open
        this link in the browser where you asked for it:
      </p>
      <EmailButton href={confirmUrl}>Confirm it is me</EmailButton>
      <p className="muted">If the button does not work, copy this link into your browser:</p>
      <p className="muted">
        <a className="link" href={confirmUrl}>
          {confirmUrl}
        </a>
      </p>
      <p className="muted">This link is valid for 15 minutes and works only once.</p>
      <p className="muted">
        If you did not ask for this, someone may be signed in to your account: reset your password,
        which signs everyone out.
      </p>
    </EmailLayout>
  );
}
