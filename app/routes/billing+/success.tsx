import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/layout/app-shell";
import { PremiumPerkList } from "~/components/premium/premium-perks";
import { requireUser } from "~/modules/auth/session.server";
import { isPremium } from "~/modules/plans/quota.server";

export const meta: MetaFunction = () => [{ title: "Thank you · Thoughtfully" }];

/**
 * Where Stripe Checkout sends the browser after paying. It grants nothing:
 * anyone can open this address. Premium starts when Stripe's signed webhook
 * (`/webhooks/stripe`) confirms the payment, usually within seconds.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  return { premium: isPremium(user) };
}

export default function CheckoutSuccess() {
  const { premium } = useLoaderData<typeof loader>();
  return (
    <AppShell>
      <div className="mx-auto max-w-xl px-4 py-16 text-center sm:px-6">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">
          {premium ? "Welcome to Premium" : "Thank you!"}
        </h1>
        <p className="mt-4 text-stone-700" role="status">
          {premium
            ? "Your account is Premium. Here is what it brings:"
            : "We're waiting for Stripe to confirm your payment. Premium starts as soon as it does, usually within a minute; reload this page to check."}
        </p>
        {premium ? (
          <div className="mt-4 text-left">
            <PremiumPerkList />
          </div>
        ) : null}
        <Link to="/" className="btn-primary mt-8">
          Back to my folders
        </Link>
      </div>
    </AppShell>
  );
}
