import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * The day before a folder's send, the items still waiting for a note
 * (docs/decisions/0198-waiting-items-reminder.md): each by its title, with a
 * link to its edit sheet, where the note is added. The links are the app's
 * own pages: they need the sender signed in, as any page does. Titles and the
 * folder's name are React text, so they are escaped.
 */
export type WaitingItem = { id: number; title: string; editUrl: string };

export type WaitingReminderInput = {
  firstName?: string | null;
  folderName: string;
  /** The send's day and time in the sender's zone, "Mon 30 Nov 2026, 00:01". */
  sendsAt: string;
  /** How many items go in that send (they have their note). */
  goingCount: number;
  items: WaitingItem[];
  folderUrl: string;
};

function things(count: number) {
  return `${count} ${count === 1 ? "item" : "items"}`;
}

/** `2 items in "Family" wait for a note before tomorrow's send`. Plain words, no capitals. */
export function waitingReminderSubject({ folderName, items }: WaitingReminderInput) {
  const name = folderName.replace(/\s+/g, " ").trim();
  const verb = items.length === 1 ? "waits" : "wait";
  return `${things(items.length)} in "${name}" ${verb} for a note before tomorrow's send`;
}

export function WaitingReminder(input: WaitingReminderInput) {
  const { firstName, folderName, sendsAt, goingCount, items, folderUrl } = input;
  return (
    <EmailLayout
      title={waitingReminderSubject(input)}
      reason="You receive this e-mail because a folder of yours is sent tomorrow and some of its items have no comment or question yet. It comes once, the day before each send, only when something waits."
    >
      <h1 className="title">Waiting for a note</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        {folderName} is sent on {sendsAt}.{" "}
        {goingCount === 0
          ? "Nothing in it has a note yet, so the send is skipped unless you add one."
          : `${things(goingCount)} with a note will go.`}{" "}
        {items.length === 1
          ? "This one has no comment or question yet, so it stays behind until it has one:"
          : "These have no comment or question yet, so they stay behind until they have one:"}
      </p>
      {items.map((item) => (
        <p className="paragraph" key={item.id}>
          <strong>{item.title}</strong>
          <br />
          <a className="link" href={item.editUrl}>
            Add a note to {item.title}
          </a>
        </p>
      ))}
      <p className="muted">
        An item that waits is never lost: it goes with the first send after it has its note.
      </p>
      <EmailButton href={folderUrl}>Open {folderName}</EmailButton>
    </EmailLayout>
  );
}
