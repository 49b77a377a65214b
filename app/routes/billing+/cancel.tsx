import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { AppShell } from "~/components/layout/app-shell";
import { requireUser } from "~/modules/auth/session.server";

export const meta: MetaFunction = () => [{ title: "Checkout cancelled · Thoughtfully" }];

/** Where Stripe Checkout sends the browser when the user goes back without paying. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export default function CheckoutCancelled() {
  return (
    <AppShell>
      <div className="mx-auto max-w-xl px-4 py-16 text-center sm:px-6">
        <h1 className="font-serif text-3xl font-semibold text-stone-900">No change made</h1>
        <p className="mt-4 text-stone-700">
          You left the checkout before paying, so nothing was charged and your plan is unchanged.
        </p>
        <div className="mt-8 flex flex-col justify-center gap-2 sm:flex-row">
          <Link to="/" className="btn-secondary">
            Back to my folders
          </Link>
          <Link to="/upgrade" className="btn-primary">
            Try again
          </Link>
        </div>
      </div>
    </AppShell>
  );
}
