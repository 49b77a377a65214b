import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { dismissBannerCookie } from "~/modules/accounts/preferences.server";
import { readProtectedForm } from "~/platform/csrf.server";
import { safeRedirectPath } from "~/platform/redirect";

export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  return redirect(safeRedirectPath(formData.get("returnTo")), {
    headers: { "Set-Cookie": await dismissBannerCookie() },
  });
}
