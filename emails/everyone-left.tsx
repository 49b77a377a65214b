import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * A folder's last recipient unsubscribed: told to its sender once
 * (docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md), with
 * the one thing that gets it going again. Never why they left: the reason is
 * the recipient's own. Names are React text, so they are escaped.
 */
export type EveryoneLeftInput = {
  firstName?: string | null;
  folderName: string;
  /** "Dad unsubscribed" (app/modules/recipients/next-issue-line.ts, `everyoneLeftLine`). */
  whoLeft: string;
  /** The folder's settings, where recipients are added. */
  addUrl: string;
};

/** `Nobody gets "Family news" now`. Plain words, no capitals. */
export function everyoneLeftSubject({ folderName }: EveryoneLeftInput) {
  return `Nobody gets "${folderName.replace(/\s+/g, " ").trim()}" now`;
}

export function EveryoneLeft(input: EveryoneLeftInput) {
  const { firstName, folderName, whoLeft, addUrl } = input;
  return (
    <EmailLayout
      title={everyoneLeftSubject(input)}
      reason={`You receive this e-mail because the last recipient of "${folderName}", a folder of yours on Thoughtfully, unsubscribed. It comes once.`}
    >
      <h1 className="title">Nobody gets {folderName} now</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        {whoLeft} from "{folderName}", so no issue goes out until it has a recipient again. What you
        saved stays in the folder.
      </p>
      <EmailButton href={addUrl}>Add a recipient</EmailButton>
    </EmailLayout>
  );
}
