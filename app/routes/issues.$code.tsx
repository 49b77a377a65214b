import {
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { RecipientLinkProblem } from "~/components/recipients/recipient-page";
import { ResubscribeForm } from "~/components/recipients/web-version";
import { recipientArchive, takeArchiveUse } from "~/modules/sending/recipient-archive.server";
import { retryAfterMessage } from "~/platform/rate-limit.server";
import { pluralize } from "~/utils/format";

/**
 * "All issues of <folder>": one recipient's archive, reached from each issue's
 * e-mail footer and web version by a signed link, no account
 * (app/modules/sending/recipient-archive.server.ts,
 * docs/decisions/0214-the-recipients-archive.md). Private like the web version:
 * not indexed, not cached by shared caches, its address kept from the pages it
 * links to (app/platform/secret-paths.ts). A forged code, or one for an address
 * never sent an issue, is a 404.
 */
const PRIVATE_PAGE = {
  "X-Robots-Tag": "noindex, nofollow",
  "Cache-Control": "private, no-store",
};

export async function loader({ params, request }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  const use = await takeArchiveUse(code);
  if (!use.allowed) {
    return data(
      { state: "busy" as const, message: retryAfterMessage(use.retryAfterSeconds) },
      {
        status: 429,
        headers: { ...PRIVATE_PAGE, "Retry-After": String(use.retryAfterSeconds) },
      },
    );
  }
  const pageText = new URL(request.url).searchParams.get("page") ?? "1";
  const page = /^\d{1,4}$/.test(pageText) ? Math.max(1, Number(pageText)) : 1;
  const archive = recipientArchive(code, page);
  if (archive.state === "unknown") {
    throw new Response("Not Found", { status: 404, headers: PRIVATE_PAGE });
  }
  return data(
    { ...archive, code },
    { status: archive.state === "left" ? 404 : 200, headers: PRIVATE_PAGE },
  );
}

export const headers: HeadersFunction = ({ loaderHeaders, errorHeaders }) =>
  errorHeaders ?? loaderHeaders;

export const meta: MetaFunction<typeof loader> = ({ data: page }) => [
  {
    title:
      page && "folderName" in page
        ? `All issues of ${page.folderName} · Thoughtfully`
        : "Thoughtfully",
  },
  { name: "robots", content: "noindex, nofollow" },
];

const LINK = "inline-flex min-h-11 items-center underline underline-offset-2";

function Frame({
  title,
  byline,
  children,
}: {
  title: string;
  byline: string;
  children: React.ReactNode;
}) {
  return (
    <div className="min-h-screen bg-cream">
      <div className="mx-auto w-full max-w-[600px] sm:px-4 sm:py-8">
        <header className="px-4 pb-4 pt-7 font-serif sm:px-6">
          <h1 className="text-[26px] font-semibold leading-tight text-brand-900">{title}</h1>
          <p className="mt-1 font-sans text-[15px] text-stone-600">{byline}</p>
        </header>
        <main
          id="main"
          className="border-y border-stone-200 bg-white px-4 py-4 text-base leading-relaxed text-stone-800 [overflow-wrap:anywhere] sm:rounded-xl sm:border sm:px-6"
        >
          {children}
        </main>
      </div>
    </div>
  );
}

export default function RecipientArchivePage() {
  const page = useLoaderData<typeof loader>();
  switch (page.state) {
    case "busy":
      return (
        <RecipientLinkProblem
          title="All issues"
          alert="This link has been opened very often."
          explanation={page.message}
        />
      );
    case "left":
      return (
        <Frame title={`All issues of ${page.folderName}`} byline={`from ${page.senderName}`}>
          <h2 className="font-serif text-xl font-semibold text-stone-900">
            {`You unsubscribed from "${page.folderName}"`}
          </h2>
          <p className="mt-2">
            {`${page.email} no longer receives "${page.folderName}" from ${page.senderName}, so its issues are no longer shown here.`}
          </p>
          <p className="mt-2">
            Changed your mind? Re-subscribe to receive the next issue and see these again. Nothing
            changes until you confirm on the next page.
          </p>
          <ResubscribeForm link={page.resubscribe} buttonClassName="btn-primary mt-4 w-full" />
        </Frame>
      );
    case "open":
      return (
        <Frame
          title={`All issues of ${page.folderName}`}
          byline={`from ${page.senderName}, as sent to ${page.email}`}
        >
          <ol className="flex flex-col gap-2" aria-label="Issues, newest first">
            {page.issues.map((issue) => (
              <li key={issue.href}>
                <a
                  href={issue.href}
                  className="flex min-h-11 items-start gap-3 rounded-lg border border-stone-200 px-4 py-3 hover:bg-stone-50"
                >
                  {issue.picture ? (
                    <img
                      src={issue.picture.url}
                      alt={issue.picture.alt}
                      width={64}
                      height={64}
                      loading="lazy"
                      className="h-16 w-16 shrink-0 rounded-md bg-stone-100 object-cover"
                    />
                  ) : null}
                  <span className="min-w-0 flex-1">
                    <span className="font-semibold text-brand-900 underline underline-offset-2">
                      {issue.sentOn}
                    </span>
                    <span className="text-sm text-stone-600">{` · ${pluralize(issue.itemCount, "thing")}`}</span>
                    {issue.titles.length > 0 ? (
                      <span className="mt-1 block text-sm text-stone-700">
                        {issue.titles.join(" · ")}
                      </span>
                    ) : null}
                    {issue.issueNote ? (
                      <span className="mt-1 block whitespace-pre-line font-serif text-stone-800">
                        {issue.issueNote}
                      </span>
                    ) : null}
                  </span>
                </a>
              </li>
            ))}
          </ol>
          {page.page > 1 || page.hasOlder ? (
            <nav aria-label="More issues" className="mt-4 flex flex-wrap justify-between gap-2">
              {page.page > 1 ? (
                <Link to={`/issues/${page.code}?page=${page.page - 1}`} className={LINK}>
                  Newer issues
                </Link>
              ) : (
                <span />
              )}
              {page.hasOlder ? (
                <Link to={`/issues/${page.code}?page=${page.page + 1}`} className={LINK}>
                  Older issues
                </Link>
              ) : null}
            </nav>
          ) : null}
          <footer className="mt-6 border-t border-stone-200 pt-4 text-center text-sm text-stone-600">
            <p>
              {`You receive this because ${page.senderFirstName} added ${page.email} to "${page.folderName}" on Thoughtfully.`}
            </p>
            <p>
              <a href={page.unsubscribeUrl} className={LINK}>
                Unsubscribe
              </a>
            </p>
          </footer>
        </Frame>
      );
  }
}
