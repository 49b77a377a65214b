import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { readProtectedForm } from "~/utils/csrf.server";
import { dismissBannerCookie } from "~/utils/preferences.server";
import { safeRedirectPath } from "~/utils/redirect";

export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  const formData = await readProtectedForm(request);
  return redirect(safeRedirectPath(formData.get("returnTo")), {
    headers: { "Set-Cookie": await dismissBannerCookie() },
  });
}
