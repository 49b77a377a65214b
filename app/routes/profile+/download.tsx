import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { Dialog } from "~/components/ui/dialog";
import { requireReauthenticatedUser } from "~/modules/auth/reauthentication.server";

/**
 * Where "Confirm it's you" brings a download back to: a dialog over Profile
 * Settings whose page starts the ZIP by itself. A meta refresh does it with or
 * without JavaScript; the download leaves this page in place
 * (docs/decisions/0175-download-my-data-asks-who-you-are.md).
 */
export const meta: MetaFunction = () => [
  { title: "Download my data · Thoughtfully" },
  { httpEquiv: "refresh", content: "0;url=/profile/export" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireReauthenticatedUser(request, { redirectTo: "/profile/download" });
  return null;
}

export default function DownloadMyData() {
  return (
    <Dialog title="Download my data" closeTo="/profile">
      <p role="status" className="text-sm text-stone-700">
        Your download has started: one ZIP file with every folder, item and recipient, and every
        file you uploaded.
      </p>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to="/profile" className="btn-secondary" preventScrollReset>
          Done
        </Link>
        {/* A plain link: the ZIP is a download, not a page. */}
        <a href="/profile/export" className="btn-primary">
          Download again
        </a>
      </div>
    </Dialog>
  );
}
