import { isRouteErrorResponse, Link, useParams, useRouteError } from "@remix-run/react";
import { Dialog } from "~/components/ui/dialog";

/**
 * The error boundary of every dialog route. A dialog whose folder, item or
 * draft is missing or someone else's (404) shows that in the dialog, over
 * the dashboard the parent route still draws; anything else (a CSRF refusal,
 * a fault) is thrown on to the boundary above, which shows the page the app
 * always shows for it.
 */
export function DialogErrorBoundary({ closeTo }: { closeTo?: string }) {
  const error = useRouteError();
  const params = useParams();
  if (!isRouteErrorResponse(error) || error.status !== 404) throw error;
  const back = closeTo ?? (params.folderId ? `/folders/${params.folderId}` : "/");
  return (
    <Dialog title="Not Found" closeTo={back}>
      <p className="text-stone-700">
        There is nothing here: it may have been deleted, or the address is not quite right.
      </p>
      <div className="mt-6 flex justify-end">
        <Link to={back} className="btn-primary" preventScrollReset>
          Back
        </Link>
      </div>
    </Dialog>
  );
}
