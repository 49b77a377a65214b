import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuthCard } from "~/components/auth/auth-card";
import {
  RecipientChoiceDone,
  RecipientLinkProblem,
  recipientPageHeaders,
  recipientPageMeta,
} from "~/components/recipients/recipient-page";
import { FormAlert, SubmitButton } from "~/components/ui/forms";
import { UnknownFolderError, unsubscribe } from "~/modules/recipients/opt-outs.server";
import {
  isValidUnsubscribeToken,
  readLinkParams,
} from "~/modules/recipients/recipient-links.server";
import { UNSUBSCRIBE_REASONS } from "~/modules/recipients/recipient-states.server";
import { folderForRecipient } from "~/modules/recipients/recipients.server";
import { sendOwnerNoticesSoon } from "~/modules/sending/waiting-reminders.server";
import type { CrossSitePosts } from "~/platform/cross-site";
import { throwIfDatabaseBusy } from "~/platform/errors.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import { z } from "~/platform/zod";

/**
 * /unsubscribe?folder=&email=&token= — the recipient's link from every
 * e-mail. Reading it changes nothing; the page's form unsubscribes. Mail apps
 * that honour List-Unsubscribe-Post (RFC 8058) post `List-Unsubscribe=One-Click`
 * to the same URL and get an empty 200.
 *
 * No CSRF token here (see app/modules/auth/csrf-coverage.test.ts): mail apps post
 * without one, and the signed link is the proof. The worst a forged
 * cross-site post can do is what the link itself already allows.
 */
const INVALID = "Invalid unsubscribe link";
const FAILED = "Failed to unsubscribe. Please try again.";
const GONE = "Unable to load unsubscribe information";
/** Asks app/entry.server.tsx for a response without a page (the one-click answer). */
const EMPTY_BODY_HEADER = "X-Empty-Body";

const REASONS = [
  ["unknown", "Prefer not to say"],
  ["not_interested", "I'm not interested any more"],
  ["too_frequent", "The e-mails come too often"],
  ["other", "Another reason"],
] as const;

export const meta = recipientPageMeta("Unsubscribe");

export const headers: HeadersFunction = (args) => {
  const headers = new Headers(recipientPageHeaders(args));
  if (args.actionHeaders.has(EMPTY_BODY_HEADER)) headers.set(EMPTY_BODY_HEADER, "1");
  return headers;
};

function validLink(source: { get(name: string): unknown }) {
  const link = readLinkParams(source);
  return link && isValidUnsubscribeToken(link.folderId, link.email, link.token) ? link : null;
}

export async function loader({ request }: LoaderFunctionArgs) {
  const link = validLink(new URL(request.url).searchParams);
  if (!link) return data({ state: "error" as const }, { status: 400 });
  const folder = folderForRecipient(link.folderId);
  if (!folder) return data({ state: "gone" as const }, { status: 404 });
  return data({
    state: "form" as const,
    ...link,
    folderName: folder.folderName,
    senderName: folder.senderName,
  });
}

function oneClickAnswer(status: number) {
  return data(null, { status, headers: { [EMPTY_BODY_HEADER]: "1" } });
}

/** The page's form: the link's fields (else the link's query), why, and how much; any other reason or scope reads as the default. */
const UnsubscribeFormSchema = z.object({
  folder: z.string().optional(),
  email: z.string().optional(),
  token: z.string().optional(),
  reason: z.enum(UNSUBSCRIBE_REASONS).catch("unknown"),
  scope: z.enum(["folder", "everything"]).catch("folder"),
});

/** Posts from any site reach this action, past the cross-site gate (docs/decisions/0239-one-cross-site-gate.md). */
export const crossSitePosts: CrossSitePosts =
  "RFC 8058 one-click: a mail app posts from its own origin, `null` or none; the signed link is the proof, and the worst a forged post can do is what the link already allows";

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  const url = new URL(request.url);
  const form = await request.formData().catch(() => new FormData());

  // RFC 8058: the body says only "One-Click"; the link's query names the recipient.
  if (form.get("List-Unsubscribe") === "One-Click") {
    const link = validLink(url.searchParams);
    if (!link) return oneClickAnswer(400);
    try {
      // Their folder's last recipient gone: its sender hears of it once.
      if (unsubscribe({ folderId: link.folderId, email: link.email, scope: "folder", request })) {
        sendOwnerNoticesSoon();
      }
      return oneClickAnswer(200);
    } catch (error) {
      if (error instanceof UnknownFolderError) return oneClickAnswer(404);
      throwIfDatabaseBusy(error);
      console.error(error);
      return oneClickAnswer(500);
    }
  }

  const submission = parseWithZod(form, { schema: UnsubscribeFormSchema });
  if (submission.status !== "success") return data({ state: "error" as const }, { status: 400 });
  const { reason, scope, ...linkFields } = submission.value;
  const submittedLink = new Map(Object.entries(linkFields));
  const link = validLink({
    get: (name: string) => submittedLink.get(name) ?? url.searchParams.get(name),
  });
  if (!link) return data({ state: "error" as const }, { status: 400 });
  try {
    const lastRecipientLeft = unsubscribe({
      folderId: link.folderId,
      email: link.email,
      reason,
      scope,
      request,
    });
    if (lastRecipientLeft) sendOwnerNoticesSoon();
  } catch (error) {
    if (error instanceof UnknownFolderError) {
      return data({ state: "gone" as const }, { status: 404 });
    }
    throwIfDatabaseBusy(error);
    console.error(error);
    return data({ state: "failed" as const }, { status: 500 });
  }
  return data({ state: "success" as const, scope });
}

const radioClass = "h-4 w-4 shrink-0 border-stone-400 text-brand-700";
/** Each choice is a thumb-sized row, the whole row its target (docs/decisions/0209-recipient-pages-thumb-sized.md). */
const reasonRowClass = "flex min-h-11 items-center gap-3 text-sm text-stone-800";
const scopeRowClass = "flex min-h-11 items-center gap-3 py-1 text-sm text-stone-800";

/** Why the page cannot offer to unsubscribe: the alert, then what it means for the reader. */
const LINK_PROBLEMS = {
  error: {
    alert: INVALID,
    explanation:
      "Please use the unsubscribe link from the most recent e-mail you received, exactly as it is.",
  },
  // A genuine link to a folder its sender has since deleted: nothing more will come from it.
  gone: {
    alert: GONE,
    explanation:
      "This folder no longer exists: its sender deleted it, so you will not receive it any more. There is nothing you need to do.",
  },
} as const;

function LinkProblem({ problem }: { problem: keyof typeof LINK_PROBLEMS }) {
  return <RecipientLinkProblem title="Unsubscribe" {...LINK_PROBLEMS[problem]} />;
}

export default function UnsubscribePage() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();

  if (loaderData.state === "gone" || actionData?.state === "gone") {
    return <LinkProblem problem="gone" />;
  }
  if (loaderData.state === "error" || actionData?.state === "error") {
    return <LinkProblem problem="error" />;
  }
  const { folderId, email, token, folderName, senderName } = loaderData;

  if (actionData?.state === "success") {
    return (
      <RecipientChoiceDone
        title="You're unsubscribed"
        description={
          <>
            <p role="status">
              {actionData.scope === "everything"
                ? `${email} will no longer receive any e-mail sent through Thoughtfully, from ${senderName} or anyone else.`
                : `${email} will no longer receive "${folderName}" from ${senderName}.`}
            </p>
            <p>
              {senderName} can see that you unsubscribed, but not why. They can only ask you back by
              having us send you one e-mail with a link, and nothing changes unless you click it and
              confirm yourself.
            </p>
          </>
        }
      />
    );
  }

  return (
    <AuthCard
      forRecipient
      title="Unsubscribe"
      description={
        <>
          <p>
            Thoughtfully lets people save links, notes and photos and send them to friends and
            family as one calm e-mail.
          </p>
          <p>
            <strong className="font-semibold text-stone-900">{senderName}</strong>
            {` sends you "${folderName}" at `}
            <span className="break-all">{email}</span>.
          </p>
        </>
      }
    >
      <Form method="post" className="space-y-5">
        {actionData?.state === "failed" ? <FormAlert errors={[FAILED]} /> : null}
        <input type="hidden" name="folder" value={folderId} />
        <input type="hidden" name="email" value={email} />
        <input type="hidden" name="token" value={token} />
        <fieldset>
          <legend className="text-sm font-medium text-stone-800">
            Why are you unsubscribing? (optional)
          </legend>
          <div className="mt-2 space-y-2">
            {REASONS.map(([value, label]) => (
              <label key={value} className={reasonRowClass}>
                <input
                  type="radio"
                  name="reason"
                  value={value}
                  defaultChecked={value === "unknown"}
                  className={radioClass}
                />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset>
          <legend className="text-sm font-medium text-stone-800">Unsubscribe from</legend>
          <div className="mt-2 space-y-2">
            <label className={scopeRowClass}>
              <input
                type="radio"
                name="scope"
                value="folder"
                defaultChecked
                className={radioClass}
              />
              <span>
                Only this folder
                <span className="block text-xs text-stone-600">
                  You stop receiving "{folderName}" from {senderName}.
                </span>
              </span>
            </label>
            <label className={scopeRowClass}>
              <input type="radio" name="scope" value="everything" className={radioClass} />
              <span>
                Everything from Thoughtfully
                <span className="block text-xs text-stone-600">
                  No e-mail from anyone who uses Thoughtfully reaches this address.
                </span>
              </span>
            </label>
          </div>
        </fieldset>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Link to="/" className="btn-secondary">
            Cancel
          </Link>
          <SubmitButton pendingText="Unsubscribing..." className="btn-primary">
            Unsubscribe
          </SubmitButton>
        </div>
      </Form>
    </AuthCard>
  );
}
