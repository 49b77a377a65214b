import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/utils/csrf.server";
import { destroySession } from "~/utils/session.server";

/** Signing out is a POST (with the CSRF token); following a link here changes nothing. */
export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  await readProtectedForm(request);
  throw redirect("/login", { headers: { "Set-Cookie": await destroySession(request) } });
}
