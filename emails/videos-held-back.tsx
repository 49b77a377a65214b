import { EmailButton, EmailLayout, greeting } from "#emails/layout";
import type { WaitingItem } from "#emails/waiting-reminder";

/**
 * A folder's send went by with nothing to send, its only items videos not prepared yet
 * (docs/decisions/0220-a-send-held-back-by-its-videos-is-told.md): told to the sender in the
 * words their own copy uses for what stays behind. Titles are React text, so they are escaped.
 */
export type VideosHeldBackInput = {
  firstName?: string | null;
  folderName: string;
  videos: WaitingItem[];
  folderUrl: string;
};

/** `Nothing was sent from "Family": 1 video is not prepared yet`. Plain words, no capitals. */
export function videosHeldBackSubject({ folderName, videos }: VideosHeldBackInput) {
  const name = folderName.replace(/\s+/g, " ").trim();
  const count = videos.length === 1 ? "1 video is" : `${videos.length} videos are`;
  return `Nothing was sent from "${name}": ${count} not prepared yet`;
}

export function VideosHeldBack(input: VideosHeldBackInput) {
  const { firstName, folderName, videos, folderUrl } = input;
  const one = videos.length === 1;
  return (
    <EmailLayout
      title={videosHeldBackSubject(input)}
      reason="You receive this e-mail because a folder of yours was due to be sent and nothing in it was ready to go. It comes once for that send."
    >
      <h1 className="title">Nothing was sent</h1>
      <p className="paragraph">{greeting(firstName)}</p>
      <p className="paragraph">
        {folderName} was due to be sent, but nothing in it was ready, so no issue went out.{" "}
        {one ? "1 video" : `${videos.length} videos`} stayed behind in the folder, not prepared yet:
      </p>
      {videos.map((video) => (
        <p className="paragraph" key={video.id}>
          <strong>{video.title}</strong>
          <br />
          <a className="link" href={video.editUrl}>
            Open {video.title}
          </a>
        </p>
      ))}
      <p className="muted">
        {one ? "It goes" : "They go"} with the next send once prepared. A video that could not be
        prepared says why on its card in the folder.
      </p>
      <EmailButton href={folderUrl}>Open {folderName}</EmailButton>
    </EmailLayout>
  );
}
