import { Fragment, type ReactNode } from "react";
import type { contentItems } from "#db/schema";
import {
  brandingCss,
  brandingMediaCss,
  HEADER_IMAGE_CID,
  type NewsletterBranding,
} from "#emails/newsletter-themes";
import { formatBytes } from "./format";

/**
 * The folder newsletter: what every recipient of a folder receives. One
 * 600 px table (fluid below that), the folder's items in order, each with
 * the recipient's own link to answer it (a heart or a note back,
 * docs/decisions/0159-recipients-answer-back.md), the sender's sign-off and a
 * footer with the unsubscribe link.
 *
 * Size matters here more than anywhere: Gmail clips an HTML part larger than
 * about 102 KB (the footer with the unsubscribe link would disappear behind
 * "View entire message"). So the markup is lean: one layout table, items as
 * plain blocks inside one cell (each title draws the rule above its item),
 * colours and fonts set once on that cell and inherited, short class names,
 * per-item refinements (paragraph spacing, link colour, serif titles) kept in
 * the head instead of inlined, and link text shortened (see `urlText`). Dark
 * mode rules select through the card's class, so no item needs a class.
 * Figures: tests/integration/newsletter.test.ts ("a full folder").
 *
 * Everything the sender typed is rendered as React text: escaped, never HTML.
 */

export type NewsletterItem = typeof contentItems.$inferSelect;

export type NewsletterInput = {
  folder: { id: number; name: string; personalSignoff: string | null };
  sender: { firstName: string | null; lastName: string | null; email: string };
  items: NewsletterItem[];
  /** A Premium sender's template and branding (emails/newsletter-themes.ts); absent: the classic look. */
  branding?: NewsletterBranding;
  /** A Premium sender's send: open image, click links and the footer sentence saying so. */
  tracked?: boolean;
  /**
   * The sender's own copy only: the items that stayed behind in the folder,
   * waiting for a note (docs/decisions/0198-waiting-items-reminder.md).
   */
  heldBack?: HeldBackItem[];
  /** The sender's few words for this issue, at its top (docs/decisions/0212-a-note-for-one-issue.md). */
  issueNote?: string | null;
};

/**
 * An item left out of the send for want of a note, a video not prepared yet, or an item whose
 * stored file is missing, with its edit sheet's address.
 */
export type HeldBackItem = {
  id: number;
  title: string;
  editUrl: string;
  waitingFor: "note" | "video" | "file";
};

/** Filled per recipient by `personalize` (emails/newsletter.server.ts). */
export const RECIPIENT_EMAIL_PLACEHOLDER = "%%RECIPIENT_EMAIL%%";
export const UNSUBSCRIBE_URL_PLACEHOLDER = "%%UNSUBSCRIBE_URL%%";
export const WEB_VERSION_URL_PLACEHOLDER = "%%WEB_VERSION_URL%%";
export const OPEN_PIXEL_URL_PLACEHOLDER = "%%OPEN_PIXEL_URL%%";
/** The recipient's archive of the folder (docs/decisions/0214-the-recipients-archive.md). */
export const ARCHIVE_URL_PLACEHOLDER = "%%ARCHIVE_URL%%";
/** Followed by the item's address, percent-encoded: the recipient's click redirect. */
export const CLICK_URL_PLACEHOLDER = "%%CLICK_URL%%";

/** The recipient's answer page for one item (a heart or a note back). */
export function answerUrlPlaceholder(itemId: number) {
  return `%%ANSWER_URL:${itemId}%%`;
}

/**
 * Every placeholder, `$1` its name; sender text that spells one is broken up
 * before rendering, and `personalize` fills them all in one pass.
 */
export const PLACEHOLDER =
  /%%(RECIPIENT_EMAIL|UNSUBSCRIBE_URL|WEB_VERSION_URL|ARCHIVE_URL|OPEN_PIXEL_URL|CLICK_URL|ANSWER_URL:\d{1,15})%%/g;

/** The Content-ID of a photo, referenced as `cid:` in the HTML and set on its attachment. */
export function photoCid(itemId: number, index: number) {
  return `photo-${itemId}-${index}@thoughtfully`;
}

/** The Content-ID of a link preview's picture. */
/** The Content-ID of a video's poster frame: the e-mail carries the poster, never the clip. */
export function posterCid(itemId: number) {
  return `poster-${itemId}@thoughtfully`;
}

export function previewCid(itemId: number) {
  return `preview-${itemId}@thoughtfully`;
}

/** Width of a link preview's picture in the card. */
const PREVIEW_IMAGE_WIDTH = 550;

/** "Ada Lovelace", or whichever name part exists, or the address. */
export function senderFullName(sender: NewsletterInput["sender"]) {
  const name = [sender.firstName, sender.lastName]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(" ");
  return name || sender.email;
}

/** "Ada", falling back to the full name, then the address. */
export function senderFirstName(sender: NewsletterInput["sender"]) {
  return sender.firstName?.trim() || senderFullName(sender);
}

/** Width of a photo in the 600 px layout: the card minus its padding and border. */
const PHOTO_WIDTH = 550;

const FONT = "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const SERIF = "Georgia, Cambria, 'Times New Roman', serif";

// Inlined by juice: what every mail app needs to show the layout legibly.
// Colours and fonts live on .c (the card) and are inherited.
const css = `
body { margin: 0; padding: 0; width: 100%; background-color: #fbf8f3; }
.p { width: 100%; background-color: #fbf8f3; }
.w { width: 100%; max-width: 600px; }
.h { padding: 28px 24px 16px 24px; font-family: ${SERIF}; color: #1c2e22; }
h1 { margin: 0; font-size: 26px; line-height: 1.25; }
.by { margin: 4px 0 0 0; font-family: ${FONT}; font-size: 15px; color: #57534e; }
.by a { color: #30503b; }
.c { background-color: #ffffff; border: 1px solid #e2ece5; border-radius: 12px; padding: 0 24px 10px 24px; font-family: ${FONT}; font-size: 16px; line-height: 1.55; color: #292524; word-break: break-word; }
h2 { padding-top: 20px; border-top: 1px solid #e7e5e4; font-size: 19px; }
.t1 { padding-top: 0; border-top: 0; }
img { display: block; max-width: 100%; margin: 0 0 10px; border-radius: 8px; }
.m { font-size: 14px; color: #57534e; }
.hb { margin: 20px 0 0 0; padding: 10px 12px; background-color: #f5f5f4; border-radius: 8px; }
.n { padding-top: 20px; font-family: ${SERIF}; font-size: 18px; line-height: 1.45; }
.s { margin: 20px 0 10px 0; padding-top: 20px; border-top: 1px solid #e7e5e4; }
.f { padding: 20px 24px 32px 24px; font-family: ${FONT}; font-size: 12px; line-height: 1.5; color: #78716c; text-align: center; }
.f a { color: #57534e; }
`;

// Kept in <head> by juice (media queries are never inlined). First the
// refinements that would cost bytes on every item if inlined; a mail app that
// drops <style> falls back to its defaults (paragraph and title spacing, link
// blue, sans titles), which read just as well. In dark mode, !important beats the
// inlined light colours.
const mediaCss = `
@media screen {
  p { margin: 0 0 10px; }
  .c a { color: #30503b; }
  h2 { margin: 20px 0 8px; font-family: ${SERIF}; line-height: 1.3; }
}
@media (prefers-color-scheme: dark) {
  body, .p { background-color: #1c1917 !important; }
  .h { color: #e7e5e4 !important; }
  .by, .c .m, .f, .f a { color: #a8a29e !important; }
  .by a { color: #c5d9cb !important; }
  .c { background-color: #292524 !important; border-color: #44403c !important; color: #e7e5e4 !important; }
  .c .hb { background-color: #1c1917 !important; }
  .c h2, .s { border-color: #44403c !important; }
  .c a { color: #c5d9cb !important; }
}
@media only screen and (max-width: 620px) {
  .h { padding: 20px 16px 12px 16px !important; }
  .c { padding: 0 16px 10px 16px !important; border-radius: 0 !important; }
}
`;

/** Text with its line breaks kept as <br>; React escapes every piece. */
function Lines({ text }: { text: string }) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  return (
    <>
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity beyond their position
        <Fragment key={index}>
          {index > 0 ? <br /> : null}
          {line}
        </Fragment>
      ))}
    </>
  );
}

function isWebUrl(url: string) {
  return /^https?:\/\//i.test(url);
}

/** Longest link text in the HTML part; the href is always the whole address. */
const URL_TEXT_MAX = 36;

/**
 * A link's visible text in the HTML part: the address without its scheme and
 * "www.", cut with "…" when long (same host, so no mismatch a spam filter
 * would flag). Long addresses in full would crowd a phone screen and cost
 * bytes against Gmail's clipping; the plain-text part carries them whole.
 */
export function urlText(url: string) {
  const short = url.replace(/^https?:\/\/(www\.)?/i, "").replace(/^([^/?#]+)\/$/, "$1");
  const characters = [...short];
  return characters.length > URL_TEXT_MAX
    ? `${characters.slice(0, URL_TEXT_MAX - 1).join("")}…`
    : short;
}

/**
 * A saved link's preview card (app/modules/items/link-previews.server.ts): the page's
 * picture (inline, by cid) linking to it, its site and a line of description.
 * Only the site and description are shown in the plain-text part: the
 * address follows anyway. Shown only once the preview is ready.
 */
function LinkCard({ item, variant }: { item: NewsletterItem; variant: Variant }) {
  if (item.previewStatus !== "ready") return null;
  const url = item.urls[0];
  const description = item.previewDescription?.trim();
  return (
    <>
      {item.previewImageKey && url && variant === "html" ? (
        <a href={url}>
          <img
            src={`cid:${previewCid(item.id)}`}
            alt={item.previewTitle ?? item.title}
            width={PREVIEW_IMAGE_WIDTH}
          />
        </a>
      ) : null}
      {item.previewSiteName || description ? (
        <p className="m">
          {item.previewSiteName ? <b>{item.previewSiteName}</b> : null}
          {item.previewSiteName && description ? " · " : null}
          {description}
        </p>
      ) : null}
    </>
  );
}

/**
 * The HTML part, or the tree the plain-text part is made from (html-to-text):
 * there, links show their whole address once and photos are named.
 */
type Variant = "html" | "text";

/**
 * Why the sender shares an item, as every copy shows it (this e-mail and the
 * web version, app/routes/v.$code.tsx): their comment, their question, and
 * whether they hope for a reply; empty parts are null.
 */
export function itemReasons(item: NewsletterItem) {
  return {
    comment: (item.addComment && item.commentText?.trim()) || null,
    question: (item.askQuestion && item.questionText?.trim()) || null,
    hope:
      item.responseExpectation === "expecting"
        ? "Reply hoped for"
        : item.responseExpectation === "not_expecting"
          ? "No reply needed"
          : null,
  };
}

function Reasons({ item, sender }: { item: NewsletterItem; sender: string }) {
  const { comment, question, hope } = itemReasons(item);
  return (
    <>
      {comment ? (
        <p>
          <b>{sender} says:</b> <Lines text={comment} />
        </p>
      ) : null}
      {question ? (
        <p>
          <b>{sender} asks:</b> <Lines text={question} />
        </p>
      ) : null}
      {hope ? (
        <p>
          <i>{hope}</i>
        </p>
      ) : null}
    </>
  );
}

function ItemBody({
  item,
  sender,
  variant,
  tracked,
}: {
  item: NewsletterItem;
  sender: string;
  variant: Variant;
  tracked: boolean;
}) {
  switch (item.type) {
    case "link":
      return (
        <>
          <LinkCard item={item} variant={variant} />
          {item.urls.length > 0 ? (
            <p>
              {item.urls.map((url, index) => (
                <Fragment key={url}>
                  {index > 0 ? <br /> : null}
                  {isWebUrl(url) ? (
                    <a
                      href={
                        tracked && variant === "html"
                          ? `${CLICK_URL_PLACEHOLDER}${encodeURIComponent(url)}`
                          : url
                      }
                    >
                      {variant === "text" ? url : urlText(url)}
                    </a>
                  ) : (
                    url
                  )}
                </Fragment>
              ))}
            </p>
          ) : null}
          <Reasons item={item} sender={sender} />
        </>
      );
    case "musing":
      return item.note?.trim() ? (
        <p>
          <Lines text={item.note.trim()} />
        </p>
      ) : null;
    case "photo":
      return (
        <>
          {item.filePaths.map((key, index) =>
            !key ? null : variant === "text" ? (
              <p key={key}>{item.fileNames[index] ?? "Photo"} (photo, attached)</p>
            ) : (
              <img
                key={key}
                src={`cid:${photoCid(item.id, index)}`}
                alt={item.fileNames[index] ?? "Photo"}
                width={PHOTO_WIDTH}
              />
            ),
          )}
          <Reasons item={item} sender={sender} />
        </>
      );
    case "video": {
      // The clip plays in the web version, at its item (docs/decisions/0207-adding-a-video-from-the-folder.md).
      const watch = `${WEB_VERSION_URL_PLACEHOLDER}#item-${item.id}`;
      return (
        <>
          {variant === "text" ? (
            <p>
              <a href={watch}>Watch the video</a>
            </p>
          ) : (
            <>
              {item.thumbnailPaths[0] ? (
                <a href={watch}>
                  <img
                    src={`cid:${posterCid(item.id)}`}
                    alt={`Play the video: ${item.title}`}
                    width={PHOTO_WIDTH}
                  />
                </a>
              ) : null}
              <p>
                <a href={watch}>▶ Play the video</a>
              </p>
            </>
          )}
          <Reasons item={item} sender={sender} />
        </>
      );
    }
    case "file":
      return (
        <>
          <p>
            {item.filePaths.map((key, index) =>
              key ? (
                <Fragment key={key}>
                  {index > 0 ? <br /> : null}
                  {item.fileNames[index] ?? "File"}{" "}
                  <span className="m">{`(${formatBytes(item.fileSizes[index] ?? 0)}, attached)`}</span>
                </Fragment>
              ) : null,
            )}
          </p>
          <Reasons item={item} sender={sender} />
        </>
      );
    default:
      return null;
  }
}

export function Newsletter({
  input,
  title,
  variant = "html",
}: {
  input: NewsletterInput;
  title: string;
  variant?: Variant;
}) {
  const { folder, sender, items, branding } = input;
  const tracked = Boolean(input.tracked);
  const fullName = senderFullName(sender);
  const firstName = senderFirstName(sender);
  const signoff = folder.personalSignoff?.trim();
  const issueNote = input.issueNote?.trim();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <title>{title}</title>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: fixed CSS from this file, never user text */}
        <style dangerouslySetInnerHTML={{ __html: css + brandingCss(branding) }} />
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: fixed CSS from this file, never user text */}
        <style dangerouslySetInnerHTML={{ __html: mediaCss + brandingMediaCss(branding) }} />
      </head>
      <body>
        <table
          role="presentation"
          className="p"
          width="100%"
          cellPadding={0}
          cellSpacing={0}
          border={0}
        >
          <tbody>
            <tr>
              <td align="center">
                <table
                  role="presentation"
                  className="w"
                  width="600"
                  cellPadding={0}
                  cellSpacing={0}
                  border={0}
                >
                  <tbody>
                    <tr>
                      <td className="h">
                        {branding?.headerImage && variant === "html" ? (
                          <img
                            src={`cid:${HEADER_IMAGE_CID}`}
                            alt=""
                            width={Math.min(PHOTO_WIDTH, branding.headerImage.width)}
                          />
                        ) : null}
                        <h1>{folder.name}</h1>
                        <p className="by">from {fullName}</p>
                        <p className="by">
                          <a href={WEB_VERSION_URL_PLACEHOLDER}>View in your browser</a>
                        </p>
                      </td>
                    </tr>
                    <tr>
                      <td className="c">
                        {input.heldBack?.length ? <HeldBack items={input.heldBack} /> : null}
                        {issueNote ? (
                          <p className="n">
                            <Lines text={issueNote} />
                          </p>
                        ) : null}
                        {items.map((item, index) => (
                          // Each title carries the rule above its item: no wrapper per item.
                          <Fragment key={item.id}>
                            <h2 className={index === 0 && !issueNote ? "t1" : undefined}>
                              {item.title}
                            </h2>
                            <ItemBody
                              item={item}
                              sender={firstName}
                              variant={variant}
                              tracked={tracked}
                            />
                            {/* Bare <p><a>: it is on every item (docs/decisions/0163-newsletter-size-with-answer-links.md). */}
                            <p>
                              <a href={answerUrlPlaceholder(item.id)}>
                                {`♥ Send ${firstName} a heart or a note`}
                              </a>
                            </p>
                          </Fragment>
                        ))}
                        {signoff ? (
                          <div className="s">
                            <Lines text={signoff} />
                          </div>
                        ) : null}
                      </td>
                    </tr>
                    <Footer
                      sender={firstName}
                      folderName={folder.name}
                      tracked={tracked && variant === "html"}
                    />
                  </tbody>
                </table>
              </td>
            </tr>
          </tbody>
        </table>
      </body>
    </html>
  );
}

/** The sender's copy names what stayed behind: nobody else sees it. */
function HeldBack({ items }: { items: HeldBackItem[] }) {
  const notes = items.filter((item) => item.waitingFor === "note");
  const videos = items.filter((item) => item.waitingFor === "video");
  const lost = items.filter((item) => item.waitingFor === "file");
  return (
    <p className="m hb">
      <strong>Only in your copy:</strong>
      {notes.length > 0 ? (
        <>
          {` ${notes.length === 1 ? "1 item" : `${notes.length} items`} stayed behind in the folder, waiting for a note: `}
          <Titles items={notes} />
          {`. ${notes.length === 1 ? "It goes" : "They go"} with the next send once ${notes.length === 1 ? "it has" : "they have"} a comment or a question.`}
        </>
      ) : null}
      {videos.length > 0 ? (
        <>
          {` ${videos.length === 1 ? "1 video" : `${videos.length} videos`} stayed behind in the folder, not prepared yet: `}
          <Titles items={videos} />
          {`. ${videos.length === 1 ? "It goes" : "They go"} with the next send once prepared.`}
        </>
      ) : null}
      {lost.length > 0 ? (
        <>
          {` ${lost.length === 1 ? "1 item" : `${lost.length} items`} stayed behind in the folder, ${lost.length === 1 ? "its" : "their"} stored file missing: `}
          <Titles items={lost} />
          {`. Add ${lost.length === 1 ? "it" : "them"} again and ${lost.length === 1 ? "it goes" : "they go"} with the next send.`}
        </>
      ) : null}
    </p>
  );
}

function Titles({ items }: { items: HeldBackItem[] }) {
  return items.map((item, index) => (
    <Fragment key={item.id}>
      {index > 0 ? ", " : null}
      <a href={item.editUrl}>{item.title}</a>
    </Fragment>
  ));
}

function Footer({
  sender,
  folderName,
  tracked,
}: {
  sender: string;
  folderName: string;
  tracked: boolean;
}): ReactNode {
  return (
    <tr>
      <td className="f">
        <p>
          {`You receive this because ${sender} added ${RECIPIENT_EMAIL_PLACEHOLDER} to the folder "${folderName}" on Thoughtfully. Reply to this e-mail to reach ${sender}. Hearts and notes you send go only to ${sender}.`}
        </p>
        {tracked ? (
          <p>{`${sender} sees when this e-mail is opened and which links are clicked (Thoughtfully Premium). Unsubscribing ends it.`}</p>
        ) : null}
        <p>
          <a href={ARCHIVE_URL_PLACEHOLDER}>{`All issues of ${folderName}`}</a>
        </p>
        <p>
          <a href={UNSUBSCRIBE_URL_PLACEHOLDER}>Unsubscribe</a>
        </p>
        {tracked ? (
          <img
            src={OPEN_PIXEL_URL_PLACEHOLDER}
            width={1}
            height={1}
            alt=""
            style={{ width: "1px", height: "1px", margin: 0, border: 0 }}
          />
        ) : null}
      </td>
    </tr>
  );
}
