import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import Stripe from "stripe";
import { DashboardPage } from "~/components/folders/dashboard";
import { PremiumPerkList } from "~/components/premium/premium-perks";
import { Dialog } from "~/components/ui/dialog";
import { CsrfInput, FormAlert, SubmitButton } from "~/components/ui/forms";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import {
  BillingError,
  BillingNotConfigured,
  billingConfigured,
  createCheckoutSession,
  premiumPriceLabel,
} from "~/modules/billing/billing.server";
import { loadDashboardPage } from "~/modules/dashboard/dashboard.server";
import { isPremium } from "~/modules/plans/quota.server";
import { templateSamples } from "~/modules/sending/template-samples.server";
import { z } from "~/platform/zod";

export const meta: MetaFunction = () => [{ title: "Upgrade to Premium · Thoughtfully" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return {
    dashboard: await loadDashboardPage(request, user),
    premium: isPremium(user),
    configured: billingConfigured(),
    price: isPremium(user) ? null : await premiumPriceLabel(),
    samples: isPremium(user) ? [] : templateSamples(),
  };
}

const UpgradeSchema = z.object({});

/** "Upgrade": a Checkout session for STRIPE_PRICE_ID, then a 303 to Stripe's page. */
export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  const formData = await readProtectedForm(request);
  const submission = parseWithZod(formData, { schema: UpgradeSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  try {
    const checkoutUrl = await createCheckoutSession(user);
    return redirect(checkoutUrl, 303);
  } catch (error) {
    if (error instanceof BillingNotConfigured) {
      return data({ result: submission.reply({ formErrors: [error.message] }) }, { status: 503 });
    }
    if (error instanceof BillingError) {
      return data({ result: submission.reply({ formErrors: [error.message] }) }, { status: 400 });
    }
    if (error instanceof Stripe.errors.StripeError) {
      console.error("Stripe checkout failed:", error.message);
      return data(
        {
          result: submission.reply({
            formErrors: ["Stripe could not start the checkout. Please try again in a moment."],
          }),
        },
        { status: 502 },
      );
    }
    throw error;
  }
}

export default function Upgrade() {
  const { dashboard, premium, configured, price, samples } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const closeTo = dashboard.selected ? `/folders/${dashboard.selected.id}` : "/";
  return (
    <DashboardPage data={dashboard}>
      <Dialog title="Upgrade to Premium" closeTo={closeTo}>
        {premium ? (
          <div className="space-y-4 text-sm text-stone-700">
            <p>You have Premium:</p>
            <PremiumPerkList />
            <Link to="/profile" className="btn-secondary">
              Manage billing on your profile
            </Link>
          </div>
        ) : (
          <div className="space-y-4">
            <PremiumPerkList samples={samples} />
            {configured ? (
              <>
                <p className="text-lg font-semibold text-stone-900">
                  {price ?? "The price is shown on Stripe's page before you pay."}
                </p>
                <p className="text-sm text-stone-600">
                  You pay on Stripe's secure page and can cancel at any time from your profile.
                </p>
                <FormAlert errors={actionData?.result.error?.[""]} />
              </>
            ) : (
              // One clear state: the reason, and a button that cannot be pressed (the
              // action still refuses a post with the same reason, shown here once).
              <p id="upgrade-unavailable" className="text-sm text-amber-800">
                Billing is not configured on this server yet, so Premium cannot be bought here.
              </p>
            )}
            <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
              <Link to={closeTo} className="btn-secondary" preventScrollReset>
                Not now
              </Link>
              {configured ? (
                <Form method="post">
                  <CsrfInput />
                  <SubmitButton pendingText="Opening checkout..." className="btn-primary w-full">
                    Upgrade
                  </SubmitButton>
                </Form>
              ) : (
                <button
                  type="button"
                  disabled
                  aria-describedby="upgrade-unavailable"
                  className="btn-primary w-full disabled:cursor-not-allowed disabled:opacity-60 sm:w-auto"
                >
                  Upgrade
                </button>
              )}
            </div>
          </div>
        )}
      </Dialog>
    </DashboardPage>
  );
}
