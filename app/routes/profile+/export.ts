import { Readable } from "node:stream";
import { createReadableStreamFromReadable, type LoaderFunctionArgs } from "@remix-run/node";
import { exportZip, takeExportAttempt } from "~/modules/accounts/data-export.server";
import { requireReauthenticatedUser } from "~/modules/auth/reauthentication.server";
import { isoDay } from "~/platform/dates";
import { retryAfterMessage } from "~/platform/rate-limit.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * "Download my data": the account's folders, items and files as one ZIP, for a
 * session that proved who it is just now (docs/decisions/0175-download-my-data-asks-who-you-are.md).
 * Without the proof, "Confirm it's you" comes back to the download page, not
 * here: a ZIP is no page for a script-driven navigation to land on.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireReauthenticatedUser(request, { redirectTo: "/profile/download" });
  const attempt = await takeExportAttempt(user.id);
  if (!attempt.allowed) {
    return redirectWithToast("/profile", {
      title: "Download not started",
      description: `You have downloaded your data several times this hour. ${retryAfterMessage(attempt.retryAfterSeconds)}`,
      variant: "destructive",
    });
  }
  const day = isoDay(new Date(), user.timeZone);
  return new Response(createReadableStreamFromReadable(Readable.from(exportZip(user.id))), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="thoughtfully-data-${day}.zip"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
