import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { destroySession } from "~/modules/auth/session.server";
import { isCrossSite } from "~/platform/cross-site.server";
import { redirectWithToast } from "~/platform/toast.server";

/** Signing out is a POST; following a link here changes nothing. */
export async function loader() {
  return redirect("/");
}

/**
 * Another site cannot sign anyone out (its post is refused with the usual
 * 403); our own page always can, even when its form token has gone stale (a
 * tab left open for days): the worst a forged sign-out could do is sign the
 * user out, and a person who pressed "Sign out" must never be left signed in.
 */
export async function action({ request }: ActionFunctionArgs) {
  if (isCrossSite(request)) await readProtectedForm(request);
  // The toast says it worked: the log-in page alone looks the same as before pressing.
  throw await redirectWithToast(
    "/login",
    { title: "You're signed out", description: "See you soon." },
    { headers: { "Set-Cookie": await destroySession(request) } },
  );
}
