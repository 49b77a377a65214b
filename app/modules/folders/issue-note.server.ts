import { and, eq } from "drizzle-orm";
import { folders } from "#db/schema";
import { writeTransaction } from "~/platform/db.server";
import { type Folder, getFolder } from "./folders.server";

/**
 * A few words for the folder's next issue (docs/decisions/0212-a-note-for-one-issue.md):
 * written here, carried by the send that opens next (app/modules/sending/sending.server.ts
 * copies it into the send's ledger) and cleared by that send's finish, in the same
 * transaction as the items leaving the folder.
 */
export function setIssueNote(userId: number, folderId: number, issueNote: string | null): Folder {
  return writeTransaction((tx) => {
    const folder = getFolder(userId, folderId);
    return tx
      .update(folders)
      .set({ issueNote })
      .where(and(eq(folders.id, folder.id), eq(folders.userId, userId)))
      .returning()
      .get()!;
  });
}
