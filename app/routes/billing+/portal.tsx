import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import Stripe from "stripe";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { requireUser } from "~/modules/auth/session.server";
import {
  BillingError,
  BillingNotConfigured,
  createPortalSession,
} from "~/modules/billing/billing.server";
import { redirectWithToast } from "~/platform/toast.server";

/** "Manage billing" on the profile: a POST that sends the browser to Stripe's customer portal. */
export async function loader() {
  throw redirect("/profile");
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireUser(request);
  await readProtectedForm(request);
  try {
    return redirect(await createPortalSession(user), 303);
  } catch (error) {
    const description =
      error instanceof BillingNotConfigured || error instanceof BillingError
        ? error.message
        : error instanceof Stripe.errors.StripeError
          ? "Stripe could not open the billing page. Please try again in a moment."
          : null;
    if (description === null) throw error;
    return redirectWithToast("/profile", {
      title: "Billing unavailable",
      description,
      variant: "destructive",
    });
  }
}
