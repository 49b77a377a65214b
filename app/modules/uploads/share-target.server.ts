import { desc, inArray } from "drizzle-orm";
import { contentItems } from "#db/schema";
import type { StoredUpload, UploadKind } from "~/modules/files/upload-kinds";
import { listFolders } from "~/modules/folders/folders.server";
import { type Capture, captureQuery, readCapture } from "~/modules/items/capture.server";
import { clipTitle, titleForUpload } from "~/modules/items/item-titles";
import { QuickUploadDetailsSchema, type UploadDetailsInput } from "~/modules/items/item-validation";
import { createUploadItem } from "~/modules/items/items.server";
import { requestVideoPass } from "~/modules/items/video-preparation-queue.server";
import { LIMITS } from "~/modules/plans/limits";
import { db } from "~/platform/db.server";
import { z } from "~/platform/zod";
import { DraftNotFoundError, discardDraft, getDraft } from "./upload-drafts.server";

/**
 * The phone's share sheet (the web app manifest's POST share target,
 * docs/decisions/0196-share-target-takes-files.md): what a share carries is
 * read as untrusted text and files, the files through the upload pipeline
 * into a draft; nothing becomes an item until the signed-in person taps Save
 * on our own page, a form with its CSRF token.
 */

/** The text fields a share carries (the manifest's `params`), read like `/add`'s query. */
export function readShare(formData: FormData): Capture {
  const fields = new URLSearchParams({ extension: "true" });
  for (const name of ["title", "text", "url"]) {
    const value = formData.get(name);
    if (typeof value === "string") fields.set(name, value);
  }
  return readCapture(fields);
}

/**
 * The folder a share opens on: the folder of the person's most recently added
 * item (sent or not) among those that still take items, else their first
 * such folder; null with none. Derived, not stored.
 */
export function lastUsedFolderId(userId: number): number | null {
  const open = listFolders(userId).filter((folder) => !folder.isUnsubscribed);
  if (open.length === 0) return null;
  const last = db
    .select({ folderId: contentItems.folderId })
    .from(contentItems)
    .where(
      inArray(
        contentItems.folderId,
        open.map((folder) => folder.id),
      ),
    )
    .orderBy(desc(contentItems.createdAt), desc(contentItems.id))
    .limit(1)
    .get();
  return last?.folderId ?? open[0]!.id;
}

/** Where a share without files goes: the Add Link dialog of the last-used folder, else `/add`. */
export function linkSharePath(userId: number, capture: Capture) {
  const folderId = capture.url ? lastUsedFolderId(userId) : null;
  return `/add${folderId ? `/${folderId}` : ""}${captureQuery(capture)}`;
}

/**
 * A shared photo's or file's title and note before the person writes any: the
 * shared title without its site's name (readCapture), else the first file's
 * title as the API's quick saves and the Add sheets give it (titleForUpload);
 * the shared text, and a shared address (a photo item has no link), become the
 * comment. Over-long text is cut, so a share is never refused for its words.
 */
export function sharedUploadDetails(
  capture: Capture,
  kind: UploadKind,
  stored: Pick<StoredUpload, "name" | "takenOn">[],
  at: { date: Date; timeZone: string },
): UploadDetailsInput {
  const title = clipTitle(capture.title || titleForUpload(kind, stored, at));
  const note = [capture.note, capture.url]
    .filter(Boolean)
    .join("\n")
    .slice(0, LIMITS.item.textMaxLength);
  return QuickUploadDetailsSchema.parse({
    title,
    addComment: note ? "on" : undefined,
    commentText: note,
  });
}

/** The Save tap's fields: the folder chosen (the last used, preselected), and the title and note as shown. */
export const SharedSaveSchema = z.object({
  folderId: z.coerce
    .number({ error: "Please choose a folder" })
    .int("Please choose a folder")
    .positive("Please choose a folder"),
  title: z.string().trim().max(LIMITS.item.titleMaxLength, "Title too long").optional(),
  // A browser posts a textarea's line breaks as CRLF (without JavaScript); the share's were LF.
  note: z
    .string()
    .trim()
    .max(LIMITS.item.textMaxLength, "Comment too long")
    .optional()
    .transform((note) => note?.replace(/\r\n?/g, "\n")),
});

export type SharedSave = z.output<typeof SharedSaveSchema>;

/** The page's two forms: Save, and Cancel (which discards the share's draft). */
export const SharedShareSchema = z.discriminatedUnion("intent", [
  SharedSaveSchema.extend({ intent: z.literal("save") }),
  z.object({ intent: z.literal("discard") }),
]);

/** The draft a share made, if it is the person's own, unexpired, and a photo, file or clip share. */
export function sharedDraft(userId: number, draftId: string) {
  const draft = getDraft(userId, draftId);
  if (draft.type === "link" || draft.type === "musing") throw new DraftNotFoundError();
  return { ...draft, type: draft.type, details: draft.fields as unknown as UploadDetailsInput };
}

/**
 * The Save tap: the draft's files become one photo, file or video item in the chosen
 * folder (the person's own: createUploadItem looks it up by owner and checks
 * its quota), with the title and note as the person left them (an emptied
 * title falls back to the draft's). The draft then goes; its files stay with
 * the item. A video item is prepared in the background, as from Add Video.
 */
export async function saveSharedDraft(userId: number, draftId: string, input: SharedSave) {
  const draft = sharedDraft(userId, draftId);
  const note = input.note ?? "";
  const details = QuickUploadDetailsSchema.parse({
    title: input.title || draft.details.title,
    addComment: note ? "on" : undefined,
    commentText: note,
  });
  const item = createUploadItem(userId, input.folderId, draft.type, details, draft.files, {
    fromDraftId: draft.id,
  });
  await discardDraft(userId, draft.id);
  if (item.type === "video") requestVideoPass();
  return item;
}

/** Cancel: the draft and its files go. */
export async function discardSharedDraft(userId: number, draftId: string) {
  await discardDraft(userId, draftId);
}

/** For the folder list of the Save page: every folder that takes items, the last used first chosen. */
export function shareFolderChoices(userId: number) {
  return listFolders(userId)
    .filter((folder) => !folder.isUnsubscribed)
    .map((folder) => ({ id: folder.id, name: folder.name, isPaused: folder.isPaused }));
}
