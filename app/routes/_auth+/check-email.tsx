import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { CsrfInput, Field, SubmitButton } from "~/components/ui/forms";
import { signedUpEmail } from "~/modules/auth/sign-up-proof.server";

export const meta: MetaFunction = () => [
  { title: "Check your email · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

/** The address this browser just signed up with (docs/decisions/0140-sign-up-that-signs-you-in.md). */
export async function loader({ request }: LoaderFunctionArgs) {
  return { email: await signedUpEmail(request) };
}

export default function CheckEmailPage() {
  const { email } = useLoaderData<typeof loader>();
  return (
    <AuthCard
      title="Check your email"
      description={
        <>
          <p>
            {email ? (
              <>
                We've sent a link to <strong className="break-all">{email}</strong> to confirm your
                email address.
              </>
            ) : (
              "We've sent you a link to confirm your email address."
            )}{" "}
            Open it to finish creating your account.
          </p>
          <p>The link is valid for 24 hours.</p>
        </>
      }
      footer={
        <p>
          Already confirmed?{" "}
          <Link to="/login" className={authLinkClass}>
            Log In
          </Link>
        </p>
      }
    >
      <section aria-labelledby="resend-heading" className="border-t border-stone-200 pt-5">
        <h2 id="resend-heading" className="font-serif text-lg font-semibold text-stone-900">
          Didn't get it?
        </h2>
        <p className="mt-1 text-sm text-stone-700">
          {email
            ? "Check your spam folder, or check the address below and we'll send a new link."
            : "Check your spam folder, or enter your email address and we'll send a new link."}
        </p>
        <Form method="post" action="/resend-verification" className="mt-4 space-y-4">
          <CsrfInput />
          <Field
            label="Email"
            inputProps={{
              id: "resend-email",
              name: "email",
              type: "email",
              autoComplete: "email",
              required: true,
              defaultValue: email ?? undefined,
            }}
          />
          <SubmitButton pendingText="Sending..." className="btn-secondary w-full">
            Send a new link
          </SubmitButton>
        </Form>
      </section>
    </AuthCard>
  );
}
