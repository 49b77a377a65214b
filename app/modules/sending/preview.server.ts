import { personalize } from "#emails/newsletter.server";
import type { SessionUser } from "~/modules/accounts/session.server";
import type { Folder } from "~/modules/folders/folders.server";
import { buildNewsletter, unsentItems } from "./sending.server";

/**
 * The folder's next newsletter as it would be sent now (the send engine's
 * renderer), addressed to the sender: for the Email Preview page and the API.
 * Neither changes anything in the folder.
 */

/** Stands in for the recipient's own unsubscribe link, in the preview and the test. */
const PREVIEW_UNSUBSCRIBE_URL = "#unsubscribe-preview";

export function renderPreview(folder: Folder, user: SessionUser) {
  const items = unsentItems(folder.id);
  if (items.length === 0) return null;
  const rendered = buildNewsletter(folder, user, items);
  const bodies = personalize(rendered, {
    email: user.email,
    unsubscribeUrl: PREVIEW_UNSUBSCRIBE_URL,
  });
  return { rendered, ...bodies };
}
