import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  data,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigate } from "@remix-run/react";
import { useEffect } from "react";
import { AuthCard, authLinkClass } from "~/components/auth/auth-card";
import { CsrfInput, SubmitButton } from "~/components/ui/forms";
import { verifyEmailToken } from "~/modules/accounts/accounts.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { clearSignUpProofCookie, signedUpHere } from "~/modules/auth/sign-up-proof.server";
import { continueSignIn } from "~/modules/auth/two-factor-login.server";
import { listFolders } from "~/modules/folders/folders.server";
import { z } from "~/platform/zod";

/** The success state moves on to /login after 3 s (docs/product-rules.md, Pages and messages). */
const REDIRECT_DELAY_MS = 3000;

export const meta: MetaFunction = () => [
  { title: "Verify your email · Thoughtfully" },
  { name: "robots", content: "noindex" },
];

/** Passes the action's Refresh header on to the page a browser without JavaScript gets. */
export const headers: HeadersFunction = ({ actionHeaders, parentHeaders }) => {
  const headers = new Headers(parentHeaders);
  const refresh = actionHeaders.get("Refresh");
  if (refresh) headers.set("Refresh", refresh);
  return headers;
};

/**
 * Reading the link changes nothing: mail scanners follow links, and some run
 * the page's scripts. Only the person's press of the button (a POST) verifies;
 * the page never submits itself.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  return data({ token: new URL(request.url).searchParams.get("token") || null });
}

const VerifySchema = z.object({ token: z.string() });

/** A new account's first folder; before there is one, the form that makes it. */
function firstFolderPath(userId: number) {
  const [first] = listFolders(userId);
  return first ? `/folders/${first.id}` : "/folders/new";
}

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readProtectedForm(request), { schema: VerifySchema });
  if (submission.status !== "success") return data({ state: "error" as const }, { status: 400 });
  const user = verifyEmailToken(submission.value.token);
  if (!user) return data({ state: "error" as const }, { status: 400 });
  // Signed in only in the browser whose sign-up chose the password: a link
  // opened anywhere else verifies and asks to log in
  // (docs/decisions/0140-sign-up-that-signs-you-in.md).
  if (await signedUpHere(request, user)) {
    const response = await continueSignIn(request, user, firstFolderPath(user.id), "password");
    response.headers.append("Set-Cookie", await clearSignUpProofCookie());
    // No toast: without JavaScript it stays until closed, over the new-folder form's Save.
    return response;
  }
  // The Refresh header moves a browser without JavaScript on to /login (a
  // <meta http-equiv="refresh"> in the page would fail axe's meta-refresh rule).
  return data(
    { state: "success" as const },
    { headers: { Refresh: `${REDIRECT_DELAY_MS / 1000};url=/login` } },
  );
}

function ResendLink({ children }: { children: string }) {
  return (
    <Link to="/resend-verification" className={authLinkClass}>
      {children}
    </Link>
  );
}

export default function VerifyEmailPage() {
  const { token } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigate = useNavigate();
  const state = actionData?.state ?? (token ? "verifying" : "invalid");

  useEffect(() => {
    if (state !== "success") return;
    const timer = setTimeout(() => navigate("/login"), REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [state, navigate]);

  if (state === "success") {
    return (
      <AuthCard
        title="Email verified"
        description={<p role="status">Your email is confirmed. Taking you to log in...</p>}
      >
        <Link to="/login" className="btn-primary w-full">
          Log In
        </Link>
      </AuthCard>
    );
  }

  if (state === "error") {
    return (
      <AuthCard
        title="Verify your email"
        description={<p role="alert">This verification link has expired or was already used.</p>}
      >
        <Link to="/resend-verification" className="btn-primary w-full">
          Send me a new link
        </Link>
        <p className="mt-4 text-center text-sm text-stone-700">
          Already confirmed?{" "}
          <Link to="/login" className={authLinkClass}>
            Log In
          </Link>
        </p>
      </AuthCard>
    );
  }

  if (state === "invalid") {
    return (
      <AuthCard
        title="Verify your email"
        description={
          <p role="alert">
            Invalid verification link. Please check your email for the correct link.
          </p>
        }
      >
        <p className="text-sm text-stone-700">
          Lost the e-mail or the link expired? <ResendLink>Get a new verification link</ResendLink>.
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Verify your email"
      description={<p>Press the button to confirm this is your email address.</p>}
    >
      <Form method="post">
        <CsrfInput />
        <input type="hidden" name="token" value={token ?? ""} />
        <SubmitButton pendingText="Verifying...">Verify my email</SubmitButton>
      </Form>
    </AuthCard>
  );
}
