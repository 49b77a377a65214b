import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { dismissBannerCookie } from "~/modules/accounts/preferences.server";
import { readProtectedForm } from "~/modules/auth/csrf.server";
import { safeRedirectPath } from "~/platform/redirect";
import { z } from "~/platform/zod";

export async function loader() {
  return redirect("/");
}

/** Anything but a path of ours goes back to the dashboard (safeRedirectPath). */
const DismissSchema = z.object({ returnTo: z.string().optional() });

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readProtectedForm(request), { schema: DismissSchema });
  const returnTo = submission.status === "success" ? submission.value.returnTo : undefined;
  return redirect(safeRedirectPath(returnTo), {
    headers: { "Set-Cookie": await dismissBannerCookie() },
  });
}
