import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { authenticator, LoginError, oauthConfigured } from "~/modules/auth/auth.server";
import { continueSignIn } from "~/modules/auth/two-factor-login.server";
import { env } from "~/platform/env.server";
import { throwIfDatabaseBusy } from "~/platform/errors.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * The provider sends the browser back here. The file name's `oauth_` keeps
 * this route out of /auth/oauth's (whose loader redirects to /login).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  if (!oauthConfigured) throw data("Not Found", { status: 404 });
  try {
    const user = await authenticator.authenticate("oauth", request);
    return await continueSignIn(request, user, "/", "oauth");
  } catch (error) {
    if (error instanceof Response) throw error;
    throwIfDatabaseBusy(error);
    if (!(error instanceof LoginError)) console.error("oauth sign-in failed", error);
    return redirectWithToast("/login", {
      title: "Sign-in failed",
      description:
        error instanceof LoginError
          ? error.message
          : `We couldn't sign you in with ${env.OAUTH_PROVIDER_NAME}. Please try again.`,
      variant: "destructive",
    });
  }
}
