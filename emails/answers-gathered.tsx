import { EmailButton, EmailLayout, greeting } from "#emails/layout";

/**
 * Recipients' hearts and notes, gathered for their sender
 * (docs/decisions/0166-answers-reach-the-sender-by-mail.md): per folder, per
 * issue, per item, who hearted it and what they wrote, each note with a
 * mailto: link that replies to its writer in the sender's own mail. The daily
 * gathering and a single note sent at once use this same e-mail. Everything a
 * recipient wrote is React text, so it is escaped.
 */
export type GatheredNote = { id: number; name: string; email: string; body: string };

export type GatheredItem = { id: number; title: string; hearts: string[]; notes: GatheredNote[] };

export type GatheredIssue = { day: string; archiveUrl: string; items: GatheredItem[] };

export type GatheredFolder = { name: string; settingsUrl: string; issues: GatheredIssue[] };

/** Names of hearts shown per item; the rest are counted ("and 12 others"). */
const HEART_NAMES_SHOWN = 10;

export function AnswersGathered({
  firstName,
  folders,
  archiveUrl,
}: {
  firstName?: string | null;
  folders: GatheredFolder[];
  /** The Save tab: every sent issue with its answers. */
  archiveUrl: string;
}) {
  const subject = answersGatheredSubject(folders);
  return (
    <EmailLayout
      title={subject}
      reason="You receive this e-mail because people you send to answered what you sent. Each folder's settings choose how: daily, each note at once, or never."
    >
      <h1 className="title">Your recipients answered</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      {folders.map((folder) => (
        <div key={folder.settingsUrl}>
          <h2 className="title">{folder.name}</h2>
          {folder.issues.map((issue) => (
            <div key={issue.archiveUrl}>
              <p className="paragraph">
                <strong>Sent {issue.day}</strong> ·{" "}
                <a className="link" href={issue.archiveUrl}>
                  See it in your archive
                </a>
              </p>
              {issue.items.map((item) => (
                <ItemAnswers key={item.id} item={item} />
              ))}
            </div>
          ))}
          <p className="muted">
            Choose how answers to {folder.name} reach you in{" "}
            <a className="link" href={folder.settingsUrl}>
              its settings
            </a>
            .
          </p>
        </div>
      ))}
      <EmailButton href={archiveUrl}>Open your archive</EmailButton>
    </EmailLayout>
  );
}

function ItemAnswers({ item }: { item: GatheredItem }) {
  const shown = item.hearts.slice(0, HEART_NAMES_SHOWN);
  const others = item.hearts.length - shown.length;
  return (
    <div>
      <p className="paragraph">
        <strong>{item.title}</strong>
      </p>
      {item.hearts.length > 0 ? (
        <p className="paragraph">
          ♥ from {shown.join(", ")}
          {others > 0 ? ` and ${others} ${others === 1 ? "other" : "others"}` : ""}
        </p>
      ) : null}
      {item.notes.map((note) => (
        <div key={note.id}>
          <p className="paragraph">
            {note.name} wrote: “{note.body}”
          </p>
          <p className="muted">
            <a className="link" href={replyHref(note.email, item.title)}>
              Reply to {note.name}
            </a>
          </p>
        </div>
      ))}
    </div>
  );
}

/** A mailto: link to the note's writer, "Re: <item title>" as its subject (RFC 6068). */
export function replyHref(email: string, itemTitle: string) {
  const address = encodeURIComponent(email).replace(/%40/g, "@");
  return `mailto:${address}?subject=${encodeURIComponent(`Re: ${itemTitle}`)}`;
}

export function answersGatheredSubject(folders: GatheredFolder[]) {
  const items = folders.flatMap((folder) => folder.issues.flatMap((issue) => issue.items));
  const hearts = items.reduce((sum, item) => sum + item.hearts.length, 0);
  const notes = items.flatMap((item) => item.notes);
  const [onlyNote] = notes;
  if (hearts === 0 && notes.length === 1 && onlyNote) {
    const item = items.find((entry) => entry.notes.includes(onlyNote));
    return `${onlyNote.name} wrote back about “${item?.title ?? ""}”`;
  }
  const parts = [
    hearts > 0 ? `${hearts} ${hearts === 1 ? "heart" : "hearts"}` : null,
    notes.length > 0 ? `${notes.length} ${notes.length === 1 ? "note" : "notes"}` : null,
  ].filter(Boolean);
  return `Your recipients answered: ${parts.join(" and ")}`;
}
