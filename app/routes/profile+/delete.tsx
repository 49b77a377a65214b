import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import { deleteAccount } from "~/modules/accounts/accounts.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireReauthenticatedUser } from "~/modules/auth/reauthentication.server";
import { destroySession } from "~/modules/auth/session.server";
import { BillingError, cancelSubscriptionNow } from "~/modules/billing/billing.server";
import { formatDay } from "~/platform/dates";
import { redirectWithToast } from "~/platform/toast.server";

export const meta: MetaFunction = () => [{ title: "Delete Account · Thoughtfully" }];

/** Deleting asks for a session that proved who it is just now (docs/decisions/0107-reauthentication-window.md). */
const requireProof = (request: Request) =>
  requireReauthenticatedUser(request, { redirectTo: "/profile/delete" });

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireProof(request);
  return {
    subscription: user.stripeSubscriptionId
      ? {
          paidUntil: user.subscriptionExpiresAt
            ? formatDay(user.subscriptionExpiresAt, user.timeZone)
            : null,
        }
      : null,
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireProof(request);
  await readProtectedForm(request);
  // Billing first: an account that is gone must not go on being charged.
  try {
    await cancelSubscriptionNow(user);
  } catch (error) {
    if (error instanceof BillingError) return { error: error.message };
    throw error;
  }
  const clearCookie = await destroySession(request);
  await deleteAccount(user.id);
  return redirectWithToast(
    "/",
    { title: "Account deleted", description: "Your account and everything in it are gone." },
    { headers: { "Set-Cookie": clearCookie } },
  );
}

export default function DeleteAccount() {
  const { subscription } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <Dialog title="Are you absolutely sure?" closeTo="/profile">
      <p className="text-sm text-stone-700">
        This permanently deletes your account. These are removed at once and cannot be recovered:
      </p>
      <ul className="mt-3 list-disc space-y-1 pl-5 text-sm text-stone-700">
        <li>your folders and all of their contents</li>
        <li>your uploaded files and photos</li>
        <li>your e-mail delivery schedules</li>
        <li>your profile information</li>
        <li>your subscription</li>
      </ul>
      <div className="mt-4 rounded-lg bg-stone-100 px-4 py-3 text-sm text-stone-800">
        <p>
          Before you go, keep a copy: one ZIP file with every folder, item and recipient, and every
          file you uploaded.
        </p>
        {/* A plain link: the ZIP is a download, not a page (docs/decisions/0155-download-my-data.md). */}
        <a href="/profile/export" className="btn-secondary mt-3 inline-block">
          Download my data
        </a>
      </div>
      {subscription ? (
        <p className="mt-4 rounded-lg bg-amber-50 px-4 py-3 text-sm text-amber-900">
          Your Premium subscription is cancelled with Stripe at once: no further payment is taken.
          {subscription.paidUntil
            ? ` The time already paid for (until ${subscription.paidUntil}) is not refunded.`
            : " The time already paid for is not refunded."}
        </p>
      ) : null}
      {actionData?.error ? (
        <div className="mt-4">
          <FormAlert errors={[actionData.error]} />
        </div>
      ) : null}
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to="/profile" className="btn-secondary" preventScrollReset>
          Cancel
        </Link>
        <Form method="post">
          <CsrfInput />
          <SubmitButton
            pendingText="Deleting..."
            className="btn w-full bg-red-700 text-white hover:bg-red-800"
          >
            Yes, delete my account
          </SubmitButton>
        </Form>
      </div>
    </Dialog>
  );
}
