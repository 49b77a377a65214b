import { type LoaderFunctionArgs, redirect } from "@remix-run/node";
import { expandUnsubscribeCode } from "~/modules/recipients/recipient-links.server";

/** The short unsubscribe link from the e-mail body: it only leads to the unsubscribe page. */
export function loader({ params }: LoaderFunctionArgs) {
  return redirect(expandUnsubscribeCode(params.code ?? "") ?? "/unsubscribe");
}
