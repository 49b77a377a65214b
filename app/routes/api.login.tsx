import { type LoaderFunctionArgs, redirect } from "@remix-run/node";

/**
 * The "log in again" address (docs/product-rules.md, Pages and messages), kept as an address so old links and
 * bookmarks work: it is our log-in page, with whatever it was asked
 * (`redirectTo`) passed along.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  return redirect(`/login${new URL(request.url).search}`);
}
