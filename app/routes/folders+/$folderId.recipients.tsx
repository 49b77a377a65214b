import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { DialogErrorBoundary } from "~/components/errors/error-boundary";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import { recipientSuppressionNotices } from "~/modules/deliverability/suppression-notices.server";
import { parseFolderId } from "~/modules/folders/folder-params.server";
import { getFolder } from "~/modules/folders/folders.server";
import type { RecipientState } from "~/modules/recipients/recipient-states.server";
import {
  askableAfterBounce,
  recipientStates,
  requestResubscription,
} from "~/modules/recipients/recipients.server";
import { type WelcomeState, welcomeStates } from "~/modules/sending/welcomes.server";
import { formatDay } from "~/platform/dates";
import { invariantResponse, orNotFound } from "~/platform/errors.server";
import { redirectWithToast, withFailureToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * The folder's recipients with their status. The sender cannot re-subscribe
 * anyone; for an unsubscribed recipient they can have one e-mail sent with a
 * link the recipient must click themselves (once per 30 days).
 */
export const meta: MetaFunction = () => [{ title: "Recipients · Thoughtfully" }];

/** Where their welcome is (docs/decisions/0208-a-welcome-before-the-first-issue.md); never a "no", which reads as an unsubscribe. */
function welcomeLine(welcome: WelcomeState | undefined, day: (date: Date | null) => string) {
  if (!welcome) return null;
  if (welcome.saidYes) return "Said yes to the welcome";
  if (welcome.status === "sent") return `Welcomed on ${day(welcome.sentAt)}`;
  if (welcome.status === "pending") return "Welcome on its way";
  return null;
}

function statusLines(
  state: RecipientState,
  day: (date: Date | null) => string,
  welcome?: WelcomeState,
) {
  const lines: string[] = [];
  const welcomed = welcomeLine(welcome, day);
  if (welcomed && state.status === "active") lines.push(welcomed);
  if (state.status === "unsubscribed") {
    // Never the reason, and nothing about an opt-out made through another sender (docs/decisions/0045-recipients-privacy.md).
    if (state.unsubscribedAt) {
      lines.push(`Unsubscribed from this folder on ${day(state.unsubscribedAt)}`);
    }
    if (state.scope === "everything") {
      lines.push("Does not accept mail sent through Thoughtfully");
    }
    if (state.resubscribeRequestedAt) {
      lines.push(`Re-subscription requested on ${day(state.resubscribeRequestedAt)}`);
    }
  } else if (state.status === "bounced") {
    lines.push(
      `Bounced on ${day(state.lastBounceAt)}${state.bounceReason ? `: ${state.bounceReason}` : ""}`,
    );
  }
  return lines;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const folder = orNotFound(() => getFolder(user.id, parseFolderId(params.folderId)));
  const day = (date: Date | null) => (date ? formatDay(date, user.timeZone) : "an unknown date");
  const states = recipientStates(folder.id);
  const suppressed = recipientSuppressionNotices(user.id, states, day);
  const welcomeOf = welcomeStates(folder.id);
  const askable = askableAfterBounce(folder.id);
  return {
    folderId: folder.id,
    folderName: folder.name,
    recipients: states.map((state) => {
      const notice = suppressed.get(state.email);
      return {
        name: state.name,
        email: state.email,
        // An opt-out says more than a suppression: it is the recipient's own choice.
        status: notice && state.status === "active" ? ("suppressed" as const) : state.status,
        /** Bounced, never complained: one "Would you like to keep getting it?" may go. */
        askAfterBounce: askable.has(state.email),
        lines: [...(notice ? [notice] : []), ...statusLines(state, day, welcomeOf(state.email))],
      };
    }),
  };
}

/** The dialog's forms: one recipient's re-subscription request, or the one question after a bounce. */
const ResubscriptionRequestSchema = z.object({
  intent: z.enum(["request-resubscription", "ask-after-bounce"]),
  email: z.string(),
});

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const folderId = parseFolderId(params.folderId);
  const parsed = ResubscriptionRequestSchema.safeParse(
    Object.fromEntries(await readProtectedForm(request)),
  );
  invariantResponse(parsed.success, "Bad Request", 400);
  const { email, intent } = parsed.data;
  const back = `/folders/${folderId}/recipients`;
  return withFailureToast(
    back,
    "Request Failed",
    async () => {
      const afterBounce = intent === "ask-after-bounce";
      await requestResubscription(user.id, folderId, email, afterBounce ? "bounce" : "unsubscribe");
      return redirectWithToast(back, {
        title: "Request sent",
        description: afterBounce
          ? `We asked ${email} whether they would like to keep getting it. Nothing is sent to them unless they say yes.`
          : `We e-mailed ${email} a link to re-subscribe. Nothing changes unless they click it.`,
      });
    },
    "The e-mail could not be sent. Please try again later.",
  );
}

const STATUS_BADGES = {
  active: ["Active", "bg-brand-50 text-brand-900 border-brand-200"],
  unsubscribed: ["Unsubscribed", "bg-amber-50 text-amber-900 border-amber-200"],
  bounced: ["Bounced", "bg-red-50 text-red-800 border-red-200"],
  suppressed: ["Not mailed", "bg-red-50 text-red-800 border-red-200"],
} as const;

export default function FolderRecipients() {
  const { folderId, folderName, recipients } = useLoaderData<typeof loader>();
  return (
    <Dialog title={`Recipients of "${folderName}"`} closeTo={`/folders/${folderId}`}>
      {recipients.length === 0 ? (
        <p className="text-sm text-stone-700">This folder has no recipients yet.</p>
      ) : (
        <ul className="divide-y divide-stone-200">
          {recipients.map((recipient) => {
            const [label, badgeClass] = STATUS_BADGES[recipient.status];
            return (
              <li key={recipient.email} className="py-3">
                <div className="flex flex-wrap items-start justify-between gap-2">
                  <div className="min-w-0">
                    <p className="font-medium text-stone-900">{recipient.name}</p>
                    <p className="break-all text-sm text-stone-700">{recipient.email}</p>
                  </div>
                  <span
                    className={`rounded-full border px-2 py-0.5 text-xs font-semibold ${badgeClass}`}
                  >
                    {label}
                  </span>
                </div>
                {recipient.lines.map((line) => (
                  <p key={line} className="mt-1 text-xs text-stone-700">
                    {line}
                  </p>
                ))}
                {recipient.status === "unsubscribed" ? (
                  <Form method="post" className="mt-2" preventScrollReset>
                    <CsrfInput />
                    <input type="hidden" name="email" value={recipient.email} />
                    <button
                      type="submit"
                      name="intent"
                      value="request-resubscription"
                      aria-label={`Request re-subscription from ${recipient.name}`}
                      className="btn-secondary px-3 py-1.5"
                    >
                      Request re-subscription
                    </button>
                  </Form>
                ) : recipient.askAfterBounce ? (
                  <Form method="post" className="mt-2" preventScrollReset>
                    <CsrfInput />
                    <input type="hidden" name="email" value={recipient.email} />
                    <button
                      type="submit"
                      name="intent"
                      value="ask-after-bounce"
                      aria-label={`Ask ${recipient.name} whether they would like to keep getting it`}
                      className="btn-secondary px-3 py-1.5"
                    >
                      Ask if they'd like to keep getting it
                    </button>
                  </Form>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      <p className="mt-4 text-xs text-stone-600">
        Recipients who unsubscribed get nothing from this folder. Asking them back sends one e-mail
        with a link they must click themselves; you can ask once every 30 days. After a bounce,
        correct the address in the folder's settings if it was wrong (a new address gets a welcome);
        if it was right, you can ask once whether they would like to keep getting it, never after a
        spam report.
      </p>
      <div className="mt-4 flex justify-end">
        <Link to={`/folders/${folderId}`} className="btn-secondary" preventScrollReset>
          Close
        </Link>
      </div>
    </Dialog>
  );
}

export function ErrorBoundary() {
  return <DialogErrorBoundary />;
}
