import { and, asc, eq, isNull } from "drizzle-orm";
import { contentItems } from "#db/schema";
import { personalize, renderNewsletter } from "#emails/newsletter.server";
import type { SessionUser } from "~/modules/accounts/session.server";
import type { Folder } from "~/modules/folders/folders.server";
import { db } from "~/platform/db.server";
import { newsletterBrandingFor } from "./branding.server";

/**
 * The folder's next newsletter as it would be sent now (the send engine's
 * renderer), addressed to the sender: for the Email Preview page and the API.
 * Neither changes anything in the folder.
 */

/** Stands in for the recipient's own unsubscribe link, in the preview and the test. */
const PREVIEW_UNSUBSCRIBE_URL = "#unsubscribe-preview";

/** The items the next send would carry: unsent, in the folder's order. The caller checked ownership. */
function unsentItems(folderId: number) {
  return db
    .select()
    .from(contentItems)
    .where(and(eq(contentItems.folderId, folderId), isNull(contentItems.sentAt)))
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
}

export function renderPreview(folder: Folder, user: SessionUser) {
  const items = unsentItems(folder.id);
  if (items.length === 0) return null;
  const look = newsletterBrandingFor(user);
  const rendered = renderNewsletter(
    {
      folder: { id: folder.id, name: folder.name, personalSignoff: folder.personalSignoff },
      sender: { firstName: user.firstName, lastName: user.lastName, email: user.email },
      items,
      branding: look?.branding,
    },
    look?.headerImage,
  );
  const bodies = personalize(rendered, {
    email: user.email,
    unsubscribeUrl: PREVIEW_UNSUBSCRIBE_URL,
  });
  return { rendered, ...bodies };
}
