import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { isCrossSite, readProtectedForm } from "~/utils/csrf.server";
import { destroySession } from "~/utils/session.server";

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
  throw redirect("/login", { headers: { "Set-Cookie": await destroySession(request) } });
}
