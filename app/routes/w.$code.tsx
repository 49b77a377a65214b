import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { RecipientLinkProblem } from "~/components/recipients/recipient-page";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { readWelcomeLinkCode, resubscribeUrl } from "~/modules/recipients/recipient-links.server";
import { answerWelcome, takeWelcomeLinkUse, welcomePage } from "~/modules/sending/welcomes.server";
import { retryAfterMessage } from "~/platform/rate-limit.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * /w/<code>: a new recipient answers the welcome
 * (docs/decisions/0208-a-welcome-before-the-first-issue.md). The e-mail's two
 * links open this page on one answer each (`?answer=yes`, `?answer=no`), with
 * one button; opening it records nothing (mail scanners open links), only the
 * button does. "Not for me" unsubscribes from the folder at once.
 */
const PRIVATE_PAGE = {
  "X-Robots-Tag": "noindex, nofollow",
  "Cache-Control": "private, no-store",
  "Referrer-Policy": "same-origin",
};

const WelcomeAnswerSchema = z.object({ intent: z.enum(["yes", "no"]) });

function notFound() {
  return new Response("Not Found", { status: 404, headers: PRIVATE_PAGE });
}

function busy(retryAfterSeconds: number) {
  return data(
    { state: "busy" as const, message: retryAfterMessage(retryAfterSeconds) },
    { status: 429, headers: { ...PRIVATE_PAGE, "Retry-After": String(retryAfterSeconds) } },
  );
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  const use = await takeWelcomeLinkUse(code);
  if (!use.allowed) return busy(use.retryAfterSeconds);
  const page = welcomePage(code);
  if (page.state === "unknown") throw notFound();
  const asked = new URL(request.url).searchParams.get("answer");
  const link = readWelcomeLinkCode(code);
  return data(
    {
      ...page,
      // The e-mail's link says which answer it is for; opened bare, the page offers both.
      offer: asked === "yes" || asked === "no" ? asked : ("both" as const),
      resubscribeUrl:
        page.state === "left" && link ? resubscribeUrl(link.email, link.folderId) : null,
    },
    { headers: PRIVATE_PAGE },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  const form = await readProtectedForm(request);
  const code = params.code ?? "";
  const use = await takeWelcomeLinkUse(code);
  if (!use.allowed) return busy(use.retryAfterSeconds);
  const submission = parseWithZod(form, { schema: WelcomeAnswerSchema });
  if (submission.status !== "success") throw new Response("Bad Request", { status: 400 });
  const answer = submission.value.intent;
  const page = answerWelcome(code, answer, request);
  if (page.state === "unknown") throw notFound();
  const back = `/w/${code}`;
  // Pressed on a link that can no longer answer (they had left): the page says so.
  if (page.state === "left" && answer === "yes") return redirect(back);
  return redirectWithToast(back, {
    title: answer === "yes" ? "Thank you" : "Unsubscribed",
    description:
      answer === "yes"
        ? `${page.senderName} will see that you said yes.`
        : `You will not get "${page.folderName}".`,
  });
}

export const headers: HeadersFunction = ({ loaderHeaders, errorHeaders }) =>
  errorHeaders ?? loaderHeaders;

export const meta: MetaFunction<typeof loader> = ({ data: page }) => [
  {
    title: `${
      page && page.state !== "busy"
        ? `${page.senderName} added you to ${page.folderName}`
        : "Welcome"
    } · Thoughtfully`,
  },
  { name: "robots", content: "noindex, nofollow" },
];

function AnswerButton({ answer }: { answer: "yes" | "no" }) {
  return (
    <Form method="post" className="mt-3">
      <CsrfInput />
      <SubmitButton
        intent={answer}
        pendingText={answer === "yes" ? "Saying yes..." : "Unsubscribing..."}
        className={`${answer === "yes" ? "btn-primary" : "btn-secondary"} w-full`}
      >
        {answer === "yes" ? "Sounds lovely" : "Not for me"}
      </SubmitButton>
    </Form>
  );
}

export default function WelcomePage() {
  const page = useLoaderData<typeof loader>();
  if (page.state === "busy") {
    return (
      <RecipientLinkProblem
        title="Welcome"
        alert="This link has been used very often."
        explanation={page.message}
      />
    );
  }
  const { senderName, folderName, nextIssue } = page;
  if (page.state === "left") {
    return (
      <AuthCard
        forRecipient
        title={`You will not get ${folderName}`}
        description={
          <p role="status">{`You are unsubscribed from "${folderName}", which ${senderName} sends through Thoughtfully. Nothing more comes from it.`}</p>
        }
      >
        {page.resubscribeUrl ? (
          <p className="text-sm text-stone-700">
            Changed your mind?{" "}
            <a href={page.resubscribeUrl} className={authLinkClass}>
              Re-subscribe
            </a>
          </p>
        ) : null}
      </AuthCard>
    );
  }
  if (page.answer === "yes") {
    return (
      <AuthCard
        forRecipient
        title={`You said yes to ${folderName}`}
        description={
          <p role="status">{`${senderName} will see it. ${nextIssue} Every issue has a link to stop them.`}</p>
        }
      >
        <AnswerButton answer="no" />
      </AuthCard>
    );
  }
  return (
    <AuthCard
      forRecipient
      title={`${senderName} added you to ${folderName}`}
      description={
        <p>{`${senderName} saves links, photos and notes for you and sends them as a letter by e-mail. ${nextIssue}`}</p>
      }
    >
      {page.offer !== "no" ? <AnswerButton answer="yes" /> : null}
      {page.offer !== "yes" ? <AnswerButton answer="no" /> : null}
      <p className="mt-3 text-center text-sm text-stone-600">
        Nothing changes unless you press the button.
      </p>
      {page.offer === "both" ? null : (
        <p className="mt-1 text-center text-sm">
          <Link to="." className={`${authLinkClass} inline-flex min-h-11 items-center px-2`}>
            Both answers
          </Link>
        </p>
      )}
    </AuthCard>
  );
}
