import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { VIDEO_TOO_LARGE_MESSAGE, VIDEO_UPLOAD_BODY_MAX_BYTES } from "~/modules/files/upload-kinds";
import { requireAddUser } from "~/modules/items/capture.server";
import { uploadProblemFor } from "~/modules/items/item-routes.server";
import {
  linkSharePath,
  readShare,
  sharedUploadDetails,
} from "~/modules/uploads/share-target.server";
import { createDraft } from "~/modules/uploads/upload-drafts.server";
import { withUpload } from "~/modules/uploads/uploads.server";
import { CROSS_SITE_REFUSAL } from "~/platform/cross-site";
import { isCrossSite } from "~/platform/cross-site.server";
import { replayWritesToPrimary } from "~/platform/replication.server";
import type { RouteBodyLimit } from "~/platform/route-body-limit";

/**
 * The phone's share sheet: the web app manifest's share target POSTs here
 * (multipart, `title`, `text`, `url` and `files`), from the OS, not from a
 * page of ours, so it carries no CSRF token. It therefore saves no item: the
 * files go through the upload pipeline into a draft of the signed-in person,
 * and the answer is our own Save page, where the Save tap (a form with its
 * token) makes the item. A share without files opens Add Link as `/add`
 * always did. docs/decisions/0196-share-target-takes-files.md says why this
 * is safe.
 */

/**
 * A share streams up to one clip, to a draft on disk, never into memory: the share sheet has one
 * address for every kind (docs/decisions/0227-videos-through-the-wizard-and-the-share-sheet.md).
 * Photos and files are still cut at their per-file limit and count.
 */
export const bodyLimit: RouteBodyLimit = {
  multipart: VIDEO_UPLOAD_BODY_MAX_BYTES,
  // Photos and files stop far below it (their per-file limit and count): only a clip gets here.
  tooLargeMessage: VIDEO_TOO_LARGE_MESSAGE,
};

/** Nothing to show here: a GET (after logging in, say) is `/add`. */
export function loader() {
  return redirect("/add");
}

export async function action({ request }: ActionFunctionArgs) {
  await replayWritesToPrimary(request);
  // This route does not take cross-site posts (no `crossSitePosts`): the server's gate refuses
  // another site's share before its body is read; this is the same rule where no gate runs
  // (`npm run dev`). docs/decisions/0239-one-cross-site-gate.md
  if (isCrossSite(request)) throw new Response(CROSS_SITE_REFUSAL.text, { status: 403 });
  const user = await requireAddUser(request);
  const upload = { kind: "photo-or-file" as const, userId: user.id, csrf: false };
  return withUpload(request, upload, async ({ formData, stored, kind }) => {
    const capture = readShare(formData);
    if (stored.length === 0) return redirect(linkSharePath(user.id, capture), 303);
    const details = sharedUploadDetails(capture, kind, stored, {
      date: new Date(),
      timeZone: user.timeZone,
    });
    const draft = await createDraft(user.id, kind, details, stored);
    return redirect(`/add/shared/${draft.id}`, 303);
  }).catch((error: unknown) => {
    const mapped = uploadProblemFor(error);
    if (!mapped) throw error;
    // A refused share is answered with its own status, as at every other door: nothing of
    // it was kept, and the error page says why.
    throw new Response(`${mapped.problem.title}: ${mapped.problem.description}`, {
      status: mapped.status,
    });
  });
}
