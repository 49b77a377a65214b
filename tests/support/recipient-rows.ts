import { and, eq } from "drizzle-orm";
import { createFolder as createFolderRow } from "#db/factories";
import { folderRecipientStates, folders } from "#db/schema";
import { activeRecipients } from "~/modules/recipients/opt-outs.server";
import { db } from "~/platform/db.server";

/**
 * The recipients domain's unit tests' rows (app/modules/recipients/): a folder
 * of people named "Person 1", "Person 2"…, and what the database then says of
 * the folder and each address.
 */
export function createFolder(userId: number, emails: string[], name = "Family") {
  return createFolderRow(db, userId, {
    name,
    recipients: emails.map((email, index) => ({ name: `Person ${index + 1}`, email })),
  });
}

export function folderRow(id: number) {
  return db.select().from(folders).where(eq(folders.id, id)).get()!;
}

export function stateRow(folderId: number, email: string) {
  return db
    .select()
    .from(folderRecipientStates)
    .where(
      and(eq(folderRecipientStates.folderId, folderId), eq(folderRecipientStates.email, email)),
    )
    .get();
}

/** The addresses the folder's next issue goes to. */
export function activeEmails(folderId: number) {
  return activeRecipients(folderRow(folderId)).map((recipient) => recipient.email);
}
