import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import { contentItems, folders } from "#db/schema";
import { db } from "~/platform/db.server";

/**
 * `needsNote` (./needs-note.ts) in SQL, never NULL: a musing, or a ticked
 * comment or question with its text. The send and the Email Preview take
 * only these items; the others wait in the folder.
 */
export const hasItsNote = sql<boolean>`(${contentItems.type} = 'musing'
  or (${contentItems.addComment} = 1 and coalesce(${contentItems.commentText}, '') <> '')
  or (${contentItems.askQuestion} = 1 and coalesce(${contentItems.questionText}, '') <> ''))`;

const waitsForNote = sql<boolean>`not ${hasItsNote}`;

/**
 * Not a video, or a video prepared (docs/decisions/0207-adding-a-video-from-the-folder.md): a clip still
 * preparing, or refused, waits in the folder like an item without its note.
 */
export const isPrepared = sql<boolean>`(${contentItems.type} <> 'video'
  or coalesce(${contentItems.videoStatus}, '') = 'ready')`;

/** The folder's unsent videos not prepared yet, in the folder's order: what the sender's copy names. */
export function videosNotPrepared(userId: number, folderId: number) {
  return db
    .select({ id: contentItems.id, title: contentItems.title })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(
      and(
        eq(folders.userId, userId),
        eq(contentItems.folderId, folderId),
        isNull(contentItems.sentAt),
        sql`not ${isPrepared}`,
      ),
    )
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
}

/** The folder's unsent items that wait for a note, in the folder's order: what the pre-send views name. */
export function itemsWaitingForNote(userId: number, folderId: number) {
  return db
    .select({ id: contentItems.id, title: contentItems.title })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(
      and(
        eq(folders.userId, userId),
        eq(contentItems.folderId, folderId),
        isNull(contentItems.sentAt),
        waitsForNote,
      ),
    )
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
}

/** How many unsent items wait for a note, per folder of the user (folders with none are left out). */
export function waitingCounts(userId: number) {
  const rows = db
    .select({ folderId: contentItems.folderId, n: count() })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(and(eq(folders.userId, userId), isNull(contentItems.sentAt), waitsForNote))
    .groupBy(contentItems.folderId)
    .all();
  return new Map(rows.map((row) => [row.folderId, row.n]));
}
