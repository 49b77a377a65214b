import crypto from "node:crypto";
import { and, asc, desc, eq, gt, lte } from "drizzle-orm";
import { type DraftFile, uploadDrafts } from "#db/schema";
import type { UploadDraft } from "#db/types";
import { releaseFiles } from "~/modules/files/stored-files.server";
import { type Folder, listFolders, recipientsOf } from "~/modules/folders/folders.server";
import {
  assertStorageFits,
  ItemRuleError,
  QuotaExceededError,
} from "~/modules/items/item-rules.server";
import type { LinkInput, MusingInput, UploadDetailsInput } from "~/modules/items/item-validation";
import { createTextItem, createUploadItem } from "~/modules/items/items.server";
import { requestVideoPass } from "~/modules/items/video-preparation-queue.server";
import { folderSizeLimit, folderStats, getUsage } from "~/modules/plans/quota.server";
import { db, writeTransaction } from "~/platform/db.server";
import { NotFoundError, RuleError } from "~/platform/errors.server";
import { z } from "~/platform/zod";
import type { WizardType } from "./multi-folder";
import {
  AT_LEAST_ONE_FOLDER,
  INVALID_FOLDER_ID,
  MAX_FOLDERS,
  NO_VALID_FOLDERS,
  PLEASE_SELECT_A_FOLDER,
  pausedMessage,
  selectAFile,
  TOO_MANY_FOLDERS,
} from "./multi-folder";

/**
 * "Upload to Multiple Folders" (docs/product-rules.md, Uploads): a draft holds the
 * content (and, for photos and files, the files stored once at the content
 * step) between the wizard's steps, so nothing is lost without JavaScript.
 * Drafts belong to one user and live 24 hours; finishing or closing the
 * wizard removes them. The files are shared by the items created from the
 * draft: one stored copy, whatever the number of folders. A clip is the same:
 * each folder's video item holds the one clip as uploaded and is prepared on
 * its own into its own MP4 and poster; the clip is released (releaseFiles)
 * only once no item or draft refers to it any more.
 */
export type { UploadDraft };
export type DraftFields = LinkInput | MusingInput | UploadDetailsInput;

export class DraftNotFoundError extends NotFoundError {}
export class DraftRuleError extends RuleError {}

export const DRAFT_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Older drafts of the same user beyond this many are removed when a new one starts. */
const MAX_DRAFTS_PER_USER = 3;

const draftKeys = (files: DraftFile[]) =>
  files.flatMap((file) => (file.thumbnailKey ? [file.key, file.thumbnailKey] : [file.key]));

/** The server rule for folder ids (docs/product-rules.md, Uploads): positive integers, 1 to 10, no repeats. */
export const FolderIdsSchema = z
  .array(
    z
      .string()
      .trim()
      .regex(/^\d{1,15}$/, INVALID_FOLDER_ID)
      .transform(Number)
      .refine((id) => id > 0, INVALID_FOLDER_ID),
  )
  .transform((ids) => [...new Set(ids)])
  .pipe(z.array(z.number()).min(1, AT_LEAST_ONE_FOLDER).max(MAX_FOLDERS, TOO_MANY_FOLDERS));

export function getDraft(userId: number, draftId: string, now = new Date()): UploadDraft {
  const draft = /^[0-9a-f]{32}$/.test(draftId)
    ? db
        .select()
        .from(uploadDrafts)
        .where(
          and(
            eq(uploadDrafts.id, draftId),
            eq(uploadDrafts.userId, userId),
            gt(uploadDrafts.expiresAt, now),
          ),
        )
        .get()
    : undefined;
  if (!draft) throw new DraftNotFoundError();
  return draft;
}

/** Starts a draft with the content step's fields and stored files. */
export async function createDraft(
  userId: number,
  type: WizardType,
  fields: DraftFields,
  files: DraftFile[],
  now = new Date(),
) {
  const { draft, dropped } = writeTransaction((tx) => {
    const older = tx
      .select()
      .from(uploadDrafts)
      .where(eq(uploadDrafts.userId, userId))
      .orderBy(desc(uploadDrafts.createdAt), desc(uploadDrafts.id))
      .all()
      .slice(MAX_DRAFTS_PER_USER - 1);
    for (const row of older) tx.delete(uploadDrafts).where(eq(uploadDrafts.id, row.id)).run();
    // A draft's files are stored: they count against the account's storage like an item's.
    if (files.length > 0) assertStorageFits(userId, draftSize({ files }));
    const draft = tx
      .insert(uploadDrafts)
      .values({
        id: crypto.randomBytes(16).toString("hex"),
        userId,
        type,
        fields: fields as Record<string, unknown>,
        files,
        folderIds: [],
        createdAt: now,
        expiresAt: new Date(now.getTime() + DRAFT_LIFETIME_MS),
      })
      .returning()
      .get();
    return { draft, dropped: older.flatMap((row) => draftKeys(row.files)) };
  });
  await releaseFiles(dropped);
  await expireDrafts(now);
  return draft;
}

/**
 * Replaces the draft's content. New files (if any were chosen) replace the
 * stored ones, which are released; without new files the stored ones stay.
 */
export async function updateDraftContent(
  userId: number,
  draftId: string,
  fields: DraftFields,
  files: DraftFile[] | null,
) {
  const replaced = writeTransaction((tx) => {
    const draft = getDraft(userId, draftId);
    if (files && files.length > 0) {
      assertStorageFits(userId, draftSize({ files }), { exceptDraftId: draft.id });
    }
    tx.update(uploadDrafts)
      .set({ fields: fields as Record<string, unknown>, ...(files ? { files } : {}) })
      .where(eq(uploadDrafts.id, draft.id))
      .run();
    return files ? draftKeys(draft.files) : [];
  });
  await releaseFiles(replaced);
}

export type FolderChoice = {
  id: number;
  name: string;
  isPaused: boolean;
  isUnsubscribed: boolean;
  selectable: boolean;
};

export function folderChoices(userId: number): FolderChoice[] {
  return listFolders(userId).map((folder) => ({
    id: folder.id,
    name: folder.name,
    isPaused: folder.isPaused,
    isUnsubscribed: folder.isUnsubscribed,
    selectable: isSelectable(folder),
  }));
}

function isSelectable(folder: Pick<Folder, "isPaused" | "isUnsubscribed">) {
  return !folder.isPaused && !folder.isUnsubscribed;
}

/**
 * Checks posted folder ids against the rules and the user's own folders: a
 * wrong or foreign id is INVALID_FOLDER_ID, a paused one is refused.
 */
export function checkFolderSelection(
  userId: number,
  raw: unknown[],
): { ok: true; folderIds: number[] } | { ok: false; error: string } {
  if (raw.length === 0) return { ok: false, error: PLEASE_SELECT_A_FOLDER };
  const parsed = FolderIdsSchema.safeParse(raw.map((value) => String(value)));
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
  const own = new Map(listFolders(userId).map((folder) => [folder.id, folder]));
  const chosen = parsed.data.map((id) => own.get(id));
  if (chosen.some((folder) => !folder)) return { ok: false, error: INVALID_FOLDER_ID };
  const paused = chosen.filter((folder) => folder!.isPaused).length;
  if (paused > 0) return { ok: false, error: pausedMessage(paused) };
  if (chosen.some((folder) => folder!.isUnsubscribed)) {
    return { ok: false, error: "Every recipient of that folder has unsubscribed." };
  }
  return { ok: true, folderIds: parsed.data };
}

/** "Select All": every selectable folder (up to 10), and how many paused ones were skipped. */
export function selectAll(userId: number) {
  const folders = listFolders(userId);
  const selectable = folders.filter(isSelectable);
  return {
    folderIds: selectable.slice(0, MAX_FOLDERS).map((folder) => folder.id),
    pausedSkipped: folders.filter((folder) => folder.isPaused).length,
    truncated: selectable.length > MAX_FOLDERS,
  };
}

export function setDraftFolders(userId: number, draftId: string, folderIds: number[]) {
  writeTransaction((tx) => {
    const draft = getDraft(userId, draftId);
    tx.update(uploadDrafts).set({ folderIds }).where(eq(uploadDrafts.id, draft.id)).run();
  });
}

export type FolderValidation = {
  folderId: number;
  folderName: string;
  canAccept: boolean;
  currentSize: number;
  maxSize: number;
  sizeAfterUpload: number;
};

export type MultiFolderValidation = {
  uploadSize: number;
  userValidation: { canUpload: boolean; reason: string | null };
  folderValidations: FolderValidation[];
};

export const draftSize = (draft: Pick<UploadDraft, "files">) =>
  draft.files.reduce((sum, file) => sum + file.size, 0);

/**
 * What the draft adds to a folder's e-mail cap: its photos or files, and
 * nothing for a clip, whose e-mail carries only its poster
 * (docs/decisions/0204-videos-are-their-own-item.md).
 */
const emailSize = (draft: Pick<UploadDraft, "type" | "files">) =>
  draft.type === "video" ? 0 : draftSize(draft);

/**
 * The validation step (docs/product-rules.md, Uploads): for each chosen folder whether it can
 * take the draft's files, and whether the account can take them all. Only a
 * preview: the upload checks every quota again when it writes.
 */
export function validateDraft(userId: number, draft: UploadDraft): MultiFolderValidation {
  const uploadSize = draftSize(draft);
  const folderBytes = emailSize(draft);
  const stats = folderStats(userId);
  const own = new Map(listFolders(userId).map((folder) => [folder.id, folder]));
  const folderValidations = draft.folderIds.flatMap((id) => {
    const folder = own.get(id);
    if (!folder) return [];
    const currentSize = stats.get(id)?.totalSize ?? 0;
    const maxSize = folderSizeLimit(recipientsOf(folder));
    const sizeAfterUpload = currentSize + folderBytes;
    return [
      {
        folderId: id,
        folderName: folder.name,
        canAccept: isSelectable(folder) && sizeAfterUpload <= maxSize,
        currentSize,
        maxSize,
        sizeAfterUpload,
      },
    ];
  });
  const usage = getUsage(userId, { exceptDraftId: draft.id });
  const accepting = folderValidations.filter((folder) => folder.canAccept).length;
  const canUpload =
    usage.totalStorageBytes + uploadSize * Math.max(accepting, 1) <= usage.limits.maxStorageBytes;
  return {
    uploadSize,
    userValidation: { canUpload, reason: canUpload ? null : "storage_quota_exceeded" },
    folderValidations,
  };
}

export type FinishResult = {
  added: { id: number; name: string }[];
  refused: { id: number; name: string; reason: string }[];
  /** True when the draft is gone (every folder done). */
  finished: boolean;
};

/**
 * Adds the draft's content to its folders. Links and musings go to every
 * folder at once (all or nothing). Photos, files and a clip go to each folder in
 * turn, each write re-checking the folder's and the account's quota; with
 * `onlyValid`, folders the validation says are full are not tried. Folders
 * that refused stay in the draft so the user can free space and try again.
 */
export async function finishDraft(
  userId: number,
  draftId: string,
  options: { onlyValid: boolean },
): Promise<FinishResult> {
  const draft = getDraft(userId, draftId);
  const own = new Map(listFolders(userId).map((folder) => [folder.id, folder]));
  const nameOf = (id: number) => own.get(id)?.name ?? "Folder";

  if (draft.type === "link" || draft.type === "musing") {
    const selection = checkFolderSelection(userId, draft.folderIds);
    if (!selection.ok) throw new DraftRuleError(selection.error);
    writeTransaction((tx) => {
      for (const folderId of selection.folderIds) {
        createTextItem(userId, folderId, draft.fields as unknown as LinkInput | MusingInput);
      }
      tx.delete(uploadDrafts).where(eq(uploadDrafts.id, draft.id)).run();
    });
    return {
      added: selection.folderIds.map((id) => ({ id, name: nameOf(id) })),
      refused: [],
      finished: true,
    };
  }

  if (draft.files.length === 0) throw new DraftRuleError(selectAFile(draft.type));
  const validation = validateDraft(userId, draft);
  if (validation.folderValidations.length === 0) {
    throw new DraftRuleError(AT_LEAST_ONE_FOLDER);
  }
  const targets = new Set(
    validation.folderValidations
      .filter((folder) =>
        options.onlyValid ? folder.canAccept : isSelectable(own.get(folder.folderId)!),
      )
      .map((folder) => folder.folderId),
  );
  if (targets.size === 0) throw new DraftRuleError(NO_VALID_FOLDERS);

  const added: FinishResult["added"] = [];
  const refused: FinishResult["refused"] = [];
  for (const { folderId, folderName } of validation.folderValidations) {
    if (!targets.has(folderId)) {
      refused.push({ id: folderId, name: folderName, reason: "It cannot take this upload." });
      continue;
    }
    try {
      createUploadItem(
        userId,
        folderId,
        draft.type,
        draft.fields as unknown as UploadDetailsInput,
        draft.files,
        { fromDraftId: draft.id },
      );
      added.push({ id: folderId, name: folderName });
    } catch (error) {
      if (!(error instanceof QuotaExceededError || error instanceof ItemRuleError)) throw error;
      refused.push({ id: folderId, name: folderName, reason: error.message });
    }
  }
  if (draft.type === "video" && added.length > 0) requestVideoPass();
  if (refused.length === 0) {
    await discardDraft(userId, draft.id);
    return { added, refused, finished: true };
  }
  setDraftFolders(
    userId,
    draft.id,
    refused.map((folder) => folder.id),
  );
  return { added, refused, finished: false };
}

/**
 * "Upload to folders one by one" (offered when the folder check times out):
 * the draft's photos, files or clip go to `folderId` alone, with that folder's and
 * the account's quota checked as the item is written. The folder leaves the
 * draft; the draft goes once no folder is left.
 */
export async function finishDraftForFolder(
  userId: number,
  draftId: string,
  folderId: number,
): Promise<{ folder: { id: number; name: string }; finished: boolean }> {
  const draft = getDraft(userId, draftId);
  const folder = listFolders(userId).find((own) => own.id === folderId);
  if (!folder || !draft.folderIds.includes(folderId)) {
    throw new DraftRuleError(PLEASE_SELECT_A_FOLDER);
  }
  if (draft.type === "link" || draft.type === "musing") {
    throw new DraftRuleError("Links and musings are added to every folder at once.");
  }
  if (draft.files.length === 0) throw new DraftRuleError(selectAFile(draft.type));
  if (!isSelectable(folder)) throw new DraftRuleError(NO_VALID_FOLDERS);
  try {
    createUploadItem(
      userId,
      folderId,
      draft.type,
      draft.fields as unknown as UploadDetailsInput,
      draft.files,
      { fromDraftId: draft.id },
    );
  } catch (error) {
    if (error instanceof QuotaExceededError || error instanceof ItemRuleError) {
      throw new DraftRuleError(`${folder.name}: ${error.message}`);
    }
    throw error;
  }
  if (draft.type === "video") requestVideoPass();
  const remaining = draft.folderIds.filter((id) => id !== folderId);
  if (remaining.length === 0) {
    await discardDraft(userId, draft.id);
    return { folder: { id: folder.id, name: folder.name }, finished: true };
  }
  setDraftFolders(userId, draft.id, remaining);
  return { folder: { id: folder.id, name: folder.name }, finished: false };
}

/** Closing the wizard: the draft goes, and its files unless an item now uses them. */
export async function discardDraft(userId: number, draftId: string) {
  const removed = db
    .delete(uploadDrafts)
    .where(and(eq(uploadDrafts.id, draftId), eq(uploadDrafts.userId, userId)))
    .returning()
    .get();
  if (removed) await releaseFiles(draftKeys(removed.files));
}

/** Removes drafts past their 24 hours (the daily sweep, and whenever a draft starts). */
export async function expireDrafts(now = new Date()) {
  const expired = db.delete(uploadDrafts).where(lte(uploadDrafts.expiresAt, now)).returning().all();
  await releaseFiles(expired.flatMap((draft) => draftKeys(draft.files)));
  return expired.length;
}

/** Every key a draft refers to (the orphan sweep keeps them). */
export function draftFileKeys() {
  return db
    .select({ files: uploadDrafts.files })
    .from(uploadDrafts)
    .orderBy(asc(uploadDrafts.id))
    .all()
    .flatMap((draft) => draftKeys(draft.files));
}
