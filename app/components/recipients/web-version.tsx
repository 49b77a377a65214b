import { Form, useFetcher } from "@remix-run/react";
import type { CSSProperties, ReactNode } from "react";
import { useHydrated } from "remix-utils/use-hydrated";
import { CsrfInput } from "~/components/ui/forms";
import type {
  WebVersionItem,
  WebVersionLook,
  WebVersionMasthead,
} from "~/modules/sending/web-version.server";
import { formatBytes } from "~/utils/format";

/**
 * The web version of a sent issue (app/routes/v.$code.tsx): the newsletter as
 * a page of its own, in the sender's look (template and accent colour, as the
 * e-mail has them: emails/newsletter-themes.ts), one column that fits any
 * width from 320 px, pictures never wider than it.
 * docs/decisions/0146-web-version-as-a-page.md
 *
 * Each item kind has its own component, so what a reader can do with an item
 * can be added to it alone.
 */

/** The classic look's green, as the e-mail uses it without a chosen accent. */
const DEFAULT_ACCENT = "#30503b";

const TEMPLATE_CLASSES: Record<
  WebVersionLook["template"],
  { page: string; masthead: string; title: string; byline: string; card: string }
> = {
  classic: {
    page: "bg-cream",
    masthead: "text-brand-900",
    title: "",
    byline: "text-stone-600",
    card: "bg-white border-brand-100 sm:rounded-xl",
  },
  letter: {
    page: "bg-[#f7f1e6]",
    masthead: "text-brand-900",
    title: "italic",
    byline: "text-stone-600",
    card: "bg-[#fffdf8] border-[#e9dfcc] font-serif text-[17px] sm:rounded-xs",
  },
  postcard: {
    page: "bg-cream",
    masthead: "bg-[var(--accent)] text-white sm:rounded-t-xl",
    title: "",
    byline: "text-white",
    card: "bg-white border-brand-100 border-t-0 sm:rounded-b-xl",
  },
};

function accentStyle(look: WebVersionLook) {
  return { "--accent": look.accentColor ?? DEFAULT_ACCENT } as CSSProperties;
}

/** A chosen accent colours the title and tops the card, as in the e-mail (not on the postcard, whose band is the accent). */
function chosenAccent(look: WebVersionLook) {
  return look.accentColor !== null && look.template !== "postcard";
}

/** The page around an issue or a notice: the sender's background, header and a card. */
export function WebVersionFrame({
  masthead,
  titleIsHeading,
  children,
  footer,
}: {
  masthead: WebVersionMasthead;
  /** The folder's name is the page's h1 on an issue; a notice has its own. */
  titleIsHeading: boolean;
  children: ReactNode;
  footer: ReactNode;
}) {
  const { look } = masthead;
  const classes = TEMPLATE_CLASSES[look.template];
  const Title = titleIsHeading ? "h1" : "p";
  return (
    <div className={`min-h-screen ${classes.page}`} style={accentStyle(look)}>
      <div className="mx-auto w-full max-w-[600px] sm:px-4 sm:py-8">
        <header className={`px-4 pb-4 pt-7 font-serif sm:px-6 ${classes.masthead}`}>
          {look.headerImage ? (
            <img
              src={look.headerImage.url}
              alt=""
              width={look.headerImage.width}
              height={look.headerImage.height}
              className="mb-4 block h-auto max-w-full rounded-lg"
            />
          ) : null}
          <Title
            className={`text-[26px] font-semibold leading-tight ${classes.title} ${
              chosenAccent(look) ? "text-[var(--accent)]" : ""
            }`}
          >
            {masthead.folderName}
          </Title>
          <p className={`mt-1 font-sans text-[15px] ${classes.byline}`}>
            from {masthead.senderName}
          </p>
        </header>
        <main
          id="main"
          className={`border-y px-4 pb-3 text-base leading-relaxed text-stone-800 [overflow-wrap:anywhere] sm:border sm:px-6 ${classes.card} ${
            chosenAccent(look) ? "border-t-4 border-t-[var(--accent)] sm:border-t-4" : ""
          }`}
        >
          {children}
        </main>
        <footer className="space-y-2 px-4 pb-8 pt-5 text-center text-xs leading-normal text-stone-600 sm:px-6">
          {footer}
        </footer>
      </div>
    </div>
  );
}

/** Links in the card take the sender's accent, as in the e-mail. */
export const cardLinkClass = "text-[var(--accent)] underline underline-offset-2";

function Paragraphs({ text }: { text: string }) {
  return <p className="mb-2.5 whitespace-pre-line">{text}</p>;
}

function ItemReasons({
  reasons,
  sender,
}: {
  reasons: { comment: string | null; question: string | null; hope: string | null };
  sender: string;
}) {
  return (
    <>
      {reasons.comment ? (
        <p className="mb-2.5 whitespace-pre-line">
          <b>{sender} says:</b> {reasons.comment}
        </p>
      ) : null}
      {reasons.question ? (
        <p className="mb-2.5 whitespace-pre-line">
          <b>{sender} asks:</b> {reasons.question}
        </p>
      ) : null}
      {reasons.hope ? (
        <p className="mb-2.5">
          <i>{reasons.hope}</i>
        </p>
      ) : null}
    </>
  );
}

const pictureClass = "mb-2.5 block h-auto max-w-full rounded-lg";

type ItemOf<Kind extends WebVersionItem["kind"]> = Extract<WebVersionItem, { kind: Kind }>;

export function LinkItem({ item, sender }: { item: ItemOf<"link">; sender: string }) {
  const first = item.links[0]?.href;
  return (
    <>
      {item.card?.pictureUrl ? (
        first ? (
          <a href={first}>
            <img src={item.card.pictureUrl} alt={item.card.pictureAlt} className={pictureClass} />
          </a>
        ) : (
          <img src={item.card.pictureUrl} alt={item.card.pictureAlt} className={pictureClass} />
        )
      ) : null}
      {item.card && (item.card.siteName || item.card.description) ? (
        <p className="mb-2.5 text-sm text-stone-600">
          {item.card.siteName ? <b>{item.card.siteName}</b> : null}
          {item.card.siteName && item.card.description ? " · " : null}
          {item.card.description}
        </p>
      ) : null}
      {item.links.length > 0 ? (
        <ul className="mb-2.5">
          {item.links.map((link, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the same address may be listed twice
            <li key={index}>
              {link.href ? (
                <a href={link.href} className={cardLinkClass}>
                  {link.text}
                </a>
              ) : (
                link.text
              )}
            </li>
          ))}
        </ul>
      ) : null}
      <ItemReasons reasons={item.reasons} sender={sender} />
    </>
  );
}

export function MusingItem({ item }: { item: ItemOf<"musing"> }) {
  return item.note ? <Paragraphs text={item.note} /> : null;
}

export function PhotoItem({ item, sender }: { item: ItemOf<"photo">; sender: string }) {
  return (
    <>
      {item.photos.map((photo, index) =>
        photo.url ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: a photo's place in its item is its identity
          <img key={index} src={photo.url} alt={photo.name} className={pictureClass} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: a photo's place in its item is its identity
          <p key={index} className="mb-2.5 text-sm text-stone-600">
            {`${photo.name} (photo, no longer stored)`}
          </p>
        ),
      )}
      <ItemReasons reasons={item.reasons} sender={sender} />
    </>
  );
}

/** The clip in place, its poster first; only its metadata is fetched until it is played. */
export function VideoItem({ item, sender }: { item: ItemOf<"video">; sender: string }) {
  return (
    <>
      {item.video ? (
        // biome-ignore lint/a11y/useMediaCaption: a family's clip comes without captions; its title and note say what it is
        <video
          controls
          playsInline
          preload="metadata"
          poster={item.video.posterUrl ?? undefined}
          src={item.video.url}
          aria-label={item.title}
          className={pictureClass}
        />
      ) : (
        <p className="mb-2.5 text-sm text-stone-600">{`${item.name} (video, no longer stored)`}</p>
      )}
      <ItemReasons reasons={item.reasons} sender={sender} />
    </>
  );
}

export function FileItem({ item, sender }: { item: ItemOf<"file">; sender: string }) {
  return (
    <>
      <ul className="mb-2.5">
        {item.files.map((file, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a file's place in its item is its identity
          <li key={index}>
            {file.url ? (
              <a href={file.url} className={cardLinkClass}>
                {file.name}
              </a>
            ) : (
              file.name
            )}{" "}
            <span className="text-sm text-stone-600">
              {file.url ? `(${formatBytes(file.size)})` : "(no longer stored)"}
            </span>
          </li>
        ))}
      </ul>
      <ItemReasons reasons={item.reasons} sender={sender} />
    </>
  );
}

/** A recipient's answer link for one item and whether they have given it their heart. */
export type ItemAnswerLink = { code: string; hearted: boolean };

/**
 * The item's heart, one button that a second press takes back (styled as on
 * the answer page: the heart to send is the strong button), and the way to
 * write back. Without JavaScript the heart is a form posting to the answer
 * page, which sends the reader back here at the item; with it, a fetcher
 * toggles it in place, shown at once
 * (docs/decisions/0161-answers-on-the-web-version.md).
 */
function ItemAnswers({
  itemId,
  answer,
  sender,
}: {
  itemId: number;
  answer: ItemAnswerLink;
  sender: string;
}) {
  const fetcher = useFetcher();
  const hydrated = useHydrated();
  const pressed = fetcher.formData?.get("hearted");
  const hearted = typeof pressed === "string" ? pressed === "true" : answer.hearted;
  return (
    <div className="mb-2.5 flex flex-wrap items-center gap-x-4 gap-y-2">
      <fetcher.Form method="post" action={`/a/${answer.code}`}>
        <CsrfInput />
        <input type="hidden" name="intent" value="heart" />
        <input type="hidden" name="hearted" value={String(!hearted)} />
        <input type="hidden" name="back" value={hydrated ? "in-place" : "web"} />
        <button
          type="submit"
          aria-describedby={`item-${itemId}`}
          className={`btn border border-[var(--accent)] ${
            hearted ? "bg-white text-[var(--accent)]" : "bg-[var(--accent)] text-white"
          }`}
        >
          {hearted ? (
            "Take back the heart"
          ) : (
            <>
              <span aria-hidden>♥</span> Send a heart
            </>
          )}
        </button>
      </fetcher.Form>
      {hearted ? (
        <span className="text-sm text-stone-600">
          <span aria-hidden>♥</span> {`${sender} sees your heart`}
        </span>
      ) : null}
      <a
        href={`/a/${answer.code}#note`}
        aria-describedby={`item-${itemId}`}
        className={`inline-flex min-h-11 items-center ${cardLinkClass}`}
      >
        {`Write back to ${sender}`}
      </a>
    </div>
  );
}

/** One item: its title (which draws the rule above it), its body by kind, and the reader's answers. */
export function IssueItem({
  item,
  sender,
  first,
  answer = null,
}: {
  item: WebVersionItem;
  sender: string;
  first: boolean;
  /** None on the sender's own copy. */
  answer?: ItemAnswerLink | null;
}) {
  return (
    <section aria-labelledby={`item-${item.id}`}>
      <h2
        id={`item-${item.id}`}
        className={`mb-2 font-serif text-[19px] font-semibold leading-snug text-stone-900 ${
          first ? "pt-5" : "mt-5 border-t border-stone-200 pt-5"
        }`}
      >
        {item.title}
      </h2>
      {item.kind === "link" ? (
        <LinkItem item={item} sender={sender} />
      ) : item.kind === "musing" ? (
        <MusingItem item={item} />
      ) : item.kind === "photo" ? (
        <PhotoItem item={item} sender={sender} />
      ) : item.kind === "video" ? (
        <VideoItem item={item} sender={sender} />
      ) : (
        <FileItem item={item} sender={sender} />
      )}
      {answer ? <ItemAnswers itemId={item.id} answer={answer} sender={sender} /> : null}
    </section>
  );
}

/** Why a genuine copy can no longer be read, in the sender's look, and what the reader may do. */
export function WebVersionNotice({
  masthead,
  title,
  children,
}: {
  masthead: WebVersionMasthead;
  title: string;
  children: ReactNode;
}) {
  return (
    <WebVersionFrame
      masthead={masthead}
      titleIsHeading={false}
      footer={
        <p>
          <a href="/" className="underline underline-offset-2">
            Thoughtfully
          </a>
          {
            ": save links, notes and photos, and send them to family and friends as one calm e-mail."
          }
        </p>
      }
    >
      <h1 className="pb-2 pt-5 font-serif text-[22px] font-semibold leading-snug text-stone-900">
        {title}
      </h1>
      <div className="space-y-2.5 pb-3">{children}</div>
    </WebVersionFrame>
  );
}

/**
 * The existing /resubscribe flow's link as a form: it only opens that page,
 * whose own button makes the change (docs/decisions/0045-recipients-privacy.md).
 */
export function ResubscribeForm({
  link,
  buttonClassName = "btn bg-[var(--accent)] text-white hover:opacity-90 focus-visible:outline-[var(--accent)]",
}: {
  link: { email: string; folder: number; token: string };
  /** In the sender's look by default; the answer page has the recipient pages' own. */
  buttonClassName?: string;
}) {
  return (
    <Form method="get" action="/resubscribe" className="pt-1">
      <input type="hidden" name="email" value={link.email} />
      <input type="hidden" name="folder" value={link.folder} />
      <input type="hidden" name="token" value={link.token} />
      <button type="submit" className={buttonClassName}>
        Re-subscribe
      </button>
    </Form>
  );
}
