import {
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { RecipientLinkProblem } from "~/components/recipients/recipient-page";
import {
  IssueItem,
  ResubscribeForm,
  WebVersionFrame,
  WebVersionNotice,
} from "~/components/recipients/web-version";
import { answersOfCopy } from "~/modules/answers/answers.server";
import { readIssueLinkCode } from "~/modules/recipients/recipient-links.server";
import { takeRecipientLinkUse } from "~/modules/sending/recipient-link-limit.server";
import { webVersionPage } from "~/modules/sending/web-version.server";
import { retryAfterMessage } from "~/platform/rate-limit.server";

/**
 * "View in your browser": one recipient's copy of a sent issue as a page of
 * its own, in the sender's look, no account needed
 * (app/modules/sending/web-version.server.ts). Not indexed, not cached by
 * shared caches. A copy that stopped working says why: the recipient left
 * (with the way back) or the sender deleted the issue; a forged code, or one
 * for an address never sent the issue, is a plain 404. A link used too often
 * waits a while (app/modules/sending/recipient-link-limit.server.ts).
 * docs/decisions/0146-web-version-as-a-page.md
 */
const PRIVATE_PAGE = {
  "X-Robots-Tag": "noindex, nofollow",
  "Cache-Control": "private, no-store",
  // The address carries the recipient's code: it must not travel to the sites linked from it,
  // but its forms post to us with our Origin (app/platform/secret-paths.ts).
  "Referrer-Policy": "same-origin",
};

export async function loader({ params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  const use = await takeRecipientLinkUse("web", code);
  if (!use.allowed) {
    return data(
      { state: "busy" as const, message: retryAfterMessage(use.retryAfterSeconds) },
      {
        status: 429,
        headers: { ...PRIVATE_PAGE, "Retry-After": String(use.retryAfterSeconds) },
      },
    );
  }
  const page = webVersionPage(code);
  if (page.state === "unknown") {
    throw new Response("Not Found", { status: 404, headers: PRIVATE_PAGE });
  }
  if (page.state !== "open") return data(page, { status: 404, headers: PRIVATE_PAGE });
  // Each item's heart and "Write back" (docs/decisions/0161-answers-on-the-web-version.md);
  // none on the sender's own copy.
  const copy = readIssueLinkCode("web", code);
  const answers = copy && answersOfCopy(copy.ledgerId, copy.email);
  const items = page.items.map((item) => ({
    ...item,
    answer: answers ? { code: answers.codeFor(item.id), hearted: answers.hearted(item.id) } : null,
  }));
  return data({ ...page, items, answers: Boolean(answers) }, { headers: PRIVATE_PAGE });
}

export const headers: HeadersFunction = ({ loaderHeaders, errorHeaders }) =>
  errorHeaders ?? loaderHeaders;

export const meta: MetaFunction<typeof loader> = ({ data: page }) => [
  {
    title:
      page?.state === "open"
        ? page.subject
        : page && "masthead" in page && page.masthead
          ? `${page.masthead.folderName} · Thoughtfully`
          : "Thoughtfully",
  },
  { name: "robots", content: "noindex, nofollow" },
];

export default function WebVersionPage() {
  const page = useLoaderData<typeof loader>();
  switch (page.state) {
    case "busy":
      return (
        <RecipientLinkProblem
          title="View in your browser"
          alert="This link has been opened very often."
          explanation={page.message}
        />
      );
    case "left":
      return (
        <WebVersionNotice
          masthead={page.masthead}
          title={`You unsubscribed from "${page.masthead.folderName}"`}
        >
          <p>
            {`${page.email} no longer receives "${page.masthead.folderName}" from ${page.masthead.senderName}, so its issues are no longer shown here.`}
          </p>
          <p>
            Changed your mind? Re-subscribe to receive the next issue, and read this one here again.
            Nothing changes until you confirm on the next page.
          </p>
          <ResubscribeForm link={page.resubscribe} />
        </WebVersionNotice>
      );
    case "gone":
      return page.masthead === null ? (
        <RecipientLinkProblem
          title="This issue is no longer available"
          alert="Its sender deleted it, with the folder it came from."
          explanation="It can no longer be read here, and nothing more will come from that folder. There is nothing you need to do."
        />
      ) : (
        <WebVersionNotice masthead={page.masthead} title="This issue is no longer available">
          <p>
            {`${page.masthead.senderName} deleted this issue of "${page.masthead.folderName}", so it can no longer be read here. There is nothing you need to do.`}
          </p>
        </WebVersionNotice>
      );
    case "open":
      return (
        <WebVersionFrame
          masthead={page.masthead}
          titleIsHeading
          footer={
            <>
              <p>
                {`You receive this because ${page.masthead.senderFirstName} added ${page.email} to the folder "${page.masthead.folderName}" on Thoughtfully. Reply to the e-mail to reach ${page.masthead.senderFirstName}.`}
              </p>
              {page.answers ? (
                <p>{`Hearts and notes you send go only to ${page.masthead.senderFirstName}.`}</p>
              ) : null}
              {page.archivePath ? (
                <p>
                  <a
                    href={page.archivePath}
                    className="inline-flex min-h-11 items-center underline underline-offset-2"
                  >
                    {`All issues of ${page.masthead.folderName}`}
                  </a>
                </p>
              ) : null}
              <p>
                <a
                  href={page.unsubscribeUrl}
                  className="inline-flex min-h-11 items-center underline underline-offset-2"
                >
                  Unsubscribe
                </a>
              </p>
            </>
          }
        >
          {page.issueNote ? (
            <p className="whitespace-pre-line font-serif text-lg">{page.issueNote}</p>
          ) : null}
          {page.items.map((item, index) => (
            <IssueItem
              key={item.id}
              item={item}
              sender={page.masthead.senderFirstName}
              first={index === 0 && !page.issueNote}
              answer={item.answer}
            />
          ))}
          {page.signoff ? (
            <p className="mt-5 whitespace-pre-line border-t border-stone-200 pt-5">
              {page.signoff}
            </p>
          ) : null}
        </WebVersionFrame>
      );
  }
}
