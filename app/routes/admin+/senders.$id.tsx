import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import {
  AdminErrorBoundary,
  AdminPage,
  adminHeaders,
  Panel,
  Stat,
  StatGrid,
} from "~/components/admin-dashboard/admin";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { formatNumber } from "~/modules/admin/admin-display";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireAdmin } from "~/modules/auth/roles.server";
import {
  formatRate,
  liftSendingPause,
  REPUTATION_LIMITS,
  senderReview,
} from "~/modules/deliverability/sender-reputation.server";
import { formatUtc } from "~/platform/dates";
import { invariantResponse } from "~/platform/errors.server";
import { parseIntentForm } from "~/platform/intent.server";
import { redirectWithToast } from "~/platform/toast.server";
import { z } from "~/platform/zod";

/**
 * One sender as the postmaster sees them: their rates over the window that
 * decides a pause, the pause and its explanation, and the form that lifts it
 * (docs/decisions/0125-paused-senders-sends-are-held.md).
 */
export const meta: MetaFunction = () => [
  { title: "Sender · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

export const headers = adminHeaders;

function senderIdOf(value: string | undefined) {
  const id = /^\d{1,15}$/.test(value ?? "") ? Number(value) : 0;
  invariantResponse(id > 0, "Not Found", 404);
  return id;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request, "the sender page");
  const now = new Date();
  const review = senderReview(senderIdOf(params.id), now);
  invariantResponse(review, "Not Found", 404);
  const { rates } = review;
  return data({
    generatedAt: now.toISOString(),
    id: review.id,
    email: review.email,
    pause: review.pause
      ? { pausedAt: review.pause.pausedAt.toISOString(), reason: review.pause.reason }
      : null,
    rates: {
      windowStart: rates.windowStart.toISOString(),
      copies: rates.copies,
      complaints: rates.complaints,
      hardBounces: rates.hardBounces,
      softBounces: rates.softBounces,
      complaintRate: formatRate(rates.complaintRate),
      bounceRate: formatRate(rates.bounceRate),
    },
    limits: {
      minimumCopies: REPUTATION_LIMITS.minimumCopies,
      complaints: `${REPUTATION_LIMITS.complaints.minimum} people and ${formatRate(REPUTATION_LIMITS.complaints.rate)}`,
      hardBounces: `${REPUTATION_LIMITS.hardBounces.minimum} addresses and ${formatRate(REPUTATION_LIMITS.hardBounces.rate)}`,
    },
  });
}

const SenderActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("lift-pause") }),
]);

export async function action({ request, params }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  const admin = await requireAdmin(request, "the sender page");
  const senderId = senderIdOf(params.id);
  const submission = parseIntentForm(formData, SenderActionSchema);
  invariantResponse(submission.status === "success", "Bad Request", 400);
  const lifted = liftSendingPause(request, admin.id, senderId);
  return redirectWithToast(`/admin/senders/${senderId}`, {
    title: lifted ? "Pause lifted" : "Not paused",
    description: lifted
      ? "Their held issues go out on the next sending pass."
      : "This sender's sending was not paused.",
  });
}

export default function SenderPage() {
  const { generatedAt, email, pause, rates, limits } = useLoaderData<typeof loader>();
  return (
    <AdminPage
      title={`Sender ${email}`}
      generatedAt={generatedAt}
      nav={
        <p className="mt-2 text-sm">
          <Link to="/admin/security" className="font-semibold text-brand-800 underline">
            Back to the Security Dashboard
          </Link>
        </p>
      }
    >
      <Panel title="Sending">
        {pause ? (
          <div className="space-y-3">
            <p className="font-semibold text-red-800">
              Paused since <time dateTime={pause.pausedAt}>{formatUtc(pause.pausedAt)}</time>
            </p>
            <p className="text-stone-800">{pause.reason}</p>
            <Form method="post">
              <CsrfInput />
              <input type="hidden" name="intent" value="lift-pause" />
              <SubmitButton pendingText="Lifting..." className="btn-primary">
                Lift the pause
              </SubmitButton>
            </Form>
            <p className="text-xs text-stone-600">
              Their held issues go out on the next pass, once each. Reports judged so far are not
              judged again: their window starts afresh.
            </p>
          </div>
        ) : (
          <p className="text-stone-800">Active: their mail is sent.</p>
        )}
      </Panel>
      <Panel title="Since the window's start">
        <p className="mb-3 text-sm text-stone-700">
          From <time dateTime={rates.windowStart}>{formatUtc(rates.windowStart)}</time>: the last 30
          days, or since a pause was last lifted. Judged from {limits.minimumCopies} copies on; a
          pause at {limits.complaints} complaints, or {limits.hardBounces} hard bounces.
        </p>
        <StatGrid>
          <Stat label="Copies sent" value={formatNumber(rates.copies)} />
          <Stat
            label="Complaints"
            value={`${formatNumber(rates.complaints)} (${rates.complaintRate})`}
          />
          <Stat
            label="Hard bounces"
            value={`${formatNumber(rates.hardBounces)} (${rates.bounceRate})`}
          />
          <Stat label="Soft bounces" value={formatNumber(rates.softBounces)} />
        </StatGrid>
      </Panel>
    </AdminPage>
  );
}

export function ErrorBoundary() {
  return <AdminErrorBoundary what="the sender page" failure="Failed to load the sender" />;
}
