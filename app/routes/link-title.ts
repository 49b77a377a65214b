import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { requireUser } from "~/modules/auth/session.server";
import { titleForLink } from "~/modules/items/item-titles.server";
import { isValidUrl, normalizeUrl } from "~/modules/items/item-validation";

/**
 * The title the Add Link sheet fills in as soon as an address is pasted
 * (docs/decisions/0199-the-app-fills-what-it-knows.md): the page's own, read by the safe
 * fetch quick saves use within its 3 s, else the site's name. Each fetch counts against
 * the saver's page-title allowance.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const url = normalizeUrl(new URL(request.url).searchParams.get("url") ?? "");
  if (!isValidUrl(url)) return data({ url, title: "" }, { status: 400 });
  const title = await titleForLink(user.id, "", [url]);
  return data({ url, title }, { headers: { "Cache-Control": "private, max-age=300" } });
}
