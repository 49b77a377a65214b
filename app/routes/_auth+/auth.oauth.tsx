import { type ActionFunctionArgs, data, redirect } from "@remix-run/node";
import { authenticator, oauthConfigured } from "~/modules/auth/auth.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";

/** "Continue with …": a POST that answers with a redirect to the provider. */
export async function loader() {
  return redirect("/login");
}

export async function action({ request }: ActionFunctionArgs) {
  await readProtectedForm(request.clone());
  if (!oauthConfigured) throw data("Not Found", { status: 404 });
  // The strategy throws the redirect to the provider (with its state cookie).
  return await authenticator.authenticate("oauth", request);
}
