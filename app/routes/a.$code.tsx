import { getFormProps, getTextareaProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useHydrated } from "remix-utils/use-hydrated";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { RecipientLinkProblem } from "~/components/recipients/recipient-page";
import { ResubscribeForm } from "~/components/recipients/web-version";
import { CsrfInput, ErrorList, SubmitButton } from "~/components/ui/forms";
import { takeAnswerLinkUse } from "~/modules/answers/answer-link-limit.server";
import { HeartSchema, NoteSchema } from "~/modules/answers/answer-validation";
import {
  answerPage,
  NOTE_REFUSALS,
  setHeart,
  webVersionPathOfAnswer,
  writeNote,
} from "~/modules/answers/answers.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { LIMITS } from "~/modules/plans/limits";
import { retryAfterMessage } from "~/platform/rate-limit.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * /a/<code>: one recipient answers one item of the issue they were sent, with
 * no account (docs/decisions/0159-recipients-answer-back.md). Opening the
 * link records nothing (mail scanners open links); only the page's buttons
 * do: one heart button that a second press takes back, and a short note to
 * the sender. A link that cannot answer says why: the sender's own copy, an
 * issue deleted, an address that left the folder (with the way back); a
 * forged code is a plain 404. docs/decisions/0160-answer-page-states-and-limit.md
 */
const PRIVATE_PAGE = {
  "X-Robots-Tag": "noindex, nofollow",
  "Cache-Control": "private, no-store",
  // The address carries the recipient's code: it must not travel to the sites linked from it,
  // but its forms post to us with our Origin (app/platform/secret-paths.ts).
  "Referrer-Policy": "same-origin",
};

/**
 * Where a heart press returns: this page, the web version at the item (its
 * form without JavaScript), or nowhere (its form with JavaScript, which
 * toggles the heart in place). docs/decisions/0161-answers-on-the-web-version.md
 */
const PressSchema = z.discriminatedUnion("intent", [
  HeartSchema.extend({ back: z.enum(["page", "web", "in-place"]).default("page") }),
  NoteSchema,
]);

function busy(retryAfterSeconds: number) {
  return data(
    { state: "busy" as const, message: retryAfterMessage(retryAfterSeconds) },
    {
      status: 429,
      headers: { ...PRIVATE_PAGE, "Retry-After": String(retryAfterSeconds) },
    },
  );
}

function notFound() {
  return new Response("Not Found", { status: 404, headers: PRIVATE_PAGE });
}

export async function loader({ params }: LoaderFunctionArgs) {
  const code = params.code ?? "";
  const use = await takeAnswerLinkUse(code);
  if (!use.allowed) return busy(use.retryAfterSeconds);
  const page = answerPage(code);
  if (page.state === "unknown") throw notFound();
  if (page.state !== "open") {
    const status = page.state === "own-copy" ? 200 : 404;
    return data(page, { status, headers: PRIVATE_PAGE });
  }
  const notesFull = page.notesLeft > 0 ? null : NOTE_REFUSALS["recipient-limit"];
  return data({ ...page, notesFull }, { headers: PRIVATE_PAGE });
}

export async function action({ request, params }: ActionFunctionArgs) {
  const form = await readProtectedForm(request);
  const code = params.code ?? "";
  const use = await takeAnswerLinkUse(code);
  if (!use.allowed) return busy(use.retryAfterSeconds);
  const submission = parseWithZod(form, { schema: PressSchema });
  if (submission.status !== "success") {
    return data({ state: "invalid" as const, result: submission.reply() }, { status: 400 });
  }
  const page = `/a/${code}`;
  if (submission.value.intent === "heart") {
    const { hearted, back } = submission.value;
    const pressed = setHeart(code, hearted);
    if (pressed.state === "unknown") throw notFound();
    // Nothing recorded: the page says why (own copy, deleted, unsubscribed).
    if (pressed.state !== "done") return redirect(page);
    if (back === "in-place") return data({ state: "hearted" as const, hearted: pressed.hearted });
    const to = back === "web" ? (webVersionPathOfAnswer(code) ?? page) : page;
    return redirectWithToast(to, { title: pressed.hearted ? "Heart sent" : "Heart taken back" });
  }
  const written = writeNote(code, submission.value.body);
  if (written.state === "unknown") throw notFound();
  if (written.state === "refused") {
    return data(
      {
        state: "invalid" as const,
        result: submission.reply({ fieldErrors: { body: [NOTE_REFUSALS[written.reason]] } }),
      },
      { status: 400 },
    );
  }
  if (written.state !== "done") return redirect(page);
  return redirectWithToast(`${page}#your-notes`, { title: "Note sent" });
}

export const headers: HeadersFunction = ({ loaderHeaders, errorHeaders }) =>
  errorHeaders ?? loaderHeaders;

const TITLES = {
  busy: "Answer",
  "own-copy": "This is your own copy",
  gone: "This issue is no longer available",
  left: "You left this folder",
} as const;

export const meta: MetaFunction<typeof loader> = ({ data: page }) => [
  {
    title: `${
      page?.state === "open" ? `Answer ${page.senderFirstName}` : TITLES[page?.state ?? "busy"]
    } · Thoughtfully`,
  },
  { name: "robots", content: "noindex, nofollow" },
];

export default function AnswerPage() {
  const page = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const busyFor = actionData?.state === "busy" ? actionData : page.state === "busy" ? page : null;
  if (busyFor) {
    return (
      <RecipientLinkProblem
        title={TITLES.busy}
        alert="This link has been used very often."
        explanation={busyFor.message}
      />
    );
  }
  switch (page.state) {
    case "own-copy":
      return (
        <AuthCard
          forRecipient
          title={TITLES["own-copy"]}
          description={
            <>
              <p>{`This is your copy of "${page.folderName}": hearts and notes are for the people you send it to.`}</p>
              <p>
                Answers from your recipients appear in Sent on Thoughtfully, beside what you sent.
              </p>
            </>
          }
        >
          <Link to="/" className="btn-secondary w-full">
            Go to Thoughtfully
          </Link>
        </AuthCard>
      );
    case "gone":
      return (
        <RecipientLinkProblem
          title={TITLES.gone}
          alert={`${page.senderName} deleted this issue of "${page.folderName}".`}
          explanation="It can no longer be answered here. There is nothing you need to do."
        />
      );
    case "left":
      return (
        <AuthCard
          forRecipient
          title={TITLES.left}
          description={
            <p>
              {`You unsubscribed from "${page.folderName}" from ${page.senderName}, so you can no longer answer its issues.`}
            </p>
          }
        >
          <p className="text-sm text-stone-700">
            Changed your mind? Re-subscribe to receive the next issue and answer again. Nothing
            changes until you confirm on the next page.
          </p>
          <ResubscribeForm link={page.resubscribe} buttonClassName="btn-primary mt-4 w-full" />
        </AuthCard>
      );
    case "open":
      return <OpenAnswerPage page={page} />;
  }
}

type OpenPage = Extract<ReturnType<typeof useLoaderData<typeof loader>>, { state: "open" }>;

function OpenAnswerPage({ page }: { page: OpenPage }) {
  const first = page.senderFirstName;
  return (
    <AuthCard
      forRecipient
      title={`Answer ${first}`}
      description={
        <p>
          {`${page.senderName} sent you `}
          <strong className="font-semibold text-stone-900">{page.item.title}</strong>
          {` in "${page.folderName}".`}
        </p>
      }
      footer={<p>{`Hearts and notes you send go only to ${first}.`}</p>}
    >
      <Form method="post">
        <CsrfInput />
        <input type="hidden" name="hearted" value={String(!page.hearted)} />
        <SubmitButton
          intent="heart"
          pendingText={page.hearted ? "Taking back..." : "Sending..."}
          className={page.hearted ? "btn-secondary w-full" : "btn-primary w-full"}
        >
          {page.hearted ? (
            "Take back the heart"
          ) : (
            <>
              <span aria-hidden>♥</span> Send a heart
            </>
          )}
        </SubmitButton>
        <p className="mt-2 text-center text-sm text-stone-600">
          {page.hearted ? (
            <>
              <span aria-hidden>♥</span> {`${first} sees your heart on this item.`}
            </>
          ) : (
            "Nothing is sent unless you press the button."
          )}
        </p>
      </Form>

      {/* A note sent clears the form: the page comes back with one more note. */}
      <NoteForm key={page.notes.length} first={first} notesFull={page.notesFull} />

      {page.notes.length > 0 ? (
        <section id="your-notes" aria-labelledby="your-notes-title" className="mt-8">
          <h2 id="your-notes-title" className="font-serif text-lg font-semibold text-stone-900">
            {`Your notes to ${first}`}
          </h2>
          <ul className="mt-2 space-y-2">
            {page.notes.map((note) => (
              <li
                key={note.id}
                className="whitespace-pre-line rounded-lg bg-stone-50 px-3 py-2 text-stone-800 [overflow-wrap:anywhere]"
              >
                {note.body}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <p className="mt-8 text-center text-sm">
        <a
          href={page.webVersionUrl}
          className={`inline-flex min-h-11 items-center ${authLinkClass}`}
        >
          Read the whole issue
        </a>
      </p>
    </AuthCard>
  );
}

/** "Write back to <first name>": a short note, or why no more can be written. */
function NoteForm({ first, notesFull }: { first: string; notesFull: string | null }) {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "note",
    lastResult: actionData?.state === "invalid" ? actionData.result : undefined,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NoteSchema }),
  });
  // The count of characters typed, with JavaScript (without it the limit is in the hint).
  const hydrated = useHydrated();
  const title = `Write back to ${first}`;
  const titleClass = "block font-serif text-lg font-semibold text-stone-900";
  if (notesFull !== null) {
    return (
      <section id="note" aria-labelledby="note-title" className="mt-8">
        <h2 id="note-title" className={titleClass}>
          {title}
        </h2>
        <p className="mt-1 text-sm text-stone-700">{notesFull}</p>
      </section>
    );
  }
  const hintId = `${fields.body.id}-hint`;
  return (
    <Form method="post" {...getFormProps(form)} className="mt-8">
      <CsrfInput />
      <label htmlFor={fields.body.id} className={titleClass}>
        {title}
      </label>
      <p id={hintId} className="mt-1 text-sm text-stone-600">
        {`A few words about this item, up to ${LIMITS.answers.noteMaxLength} characters. Only ${first} reads it.`}
      </p>
      <textarea
        {...getTextareaProps(fields.body, { ariaDescribedBy: hintId })}
        key={fields.body.key}
        rows={5}
        className="mt-2 block w-full rounded-lg border border-stone-300 bg-white px-3 py-2 text-stone-900 aria-[invalid]:border-red-600"
      />
      {hydrated ? (
        <p className="mt-1 text-right text-xs text-stone-600" aria-live="polite">
          {`${(fields.body.value ?? "").length}/${LIMITS.answers.noteMaxLength}`}
        </p>
      ) : null}
      <ErrorList id={fields.body.errorId} errors={fields.body.errors} />
      <div className="mt-3">
        <SubmitButton intent="note" pendingText="Sending..." className="btn-primary w-full">
          Send note
        </SubmitButton>
      </div>
    </Form>
  );
}
