import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { StoredUpload } from "~/modules/files/upload-kinds";
import {
  typedValues,
  unexpectedSaveProblem,
  uploadProblemFor,
} from "~/modules/items/item-routes.server";
import { QuotaExceededError } from "~/modules/items/item-rules.server";
import { clipTitle } from "~/modules/items/item-titles";
import { withUploadTitle } from "~/modules/items/item-titles.server";
import {
  KEPT_FILES_FIELD,
  type KeptFiles,
  QuickUploadDetailsSchema,
  schemaFor,
  type UploadProblem,
  type UploadType,
} from "~/modules/items/item-validation";
import { saveItem } from "~/modules/items/save-item.server";
import { oneTimeKeyOf, savedWithKey } from "~/platform/one-time-keys.server";
import {
  createDraft,
  DraftNotFoundError,
  discardDraft,
  getDraft,
  type UploadDraft,
  updateDraftContent,
} from "./upload-drafts.server";

/**
 * No file is lost to a form error
 * (docs/decisions/0248-the-server-fills-a-photos-title-and-keeps-refused-files.md). An Add
 * sheet's form refused for its fields (no comment nor question, a field too long) keeps the
 * files it came with: they stay on the server as an upload draft of the sender's, the wizard's
 * and the share sheet's kind (./upload-drafts.server.ts: 24 hours, three a sender, counted in
 * their storage, swept like the others), and the re-shown form names them and sends the draft's
 * id back, so the next submit needs no second pick.
 */

/** What the sheet's action answers: where the item is, or the form again with what was kept. */
export type SheetUploadAnswer =
  | { ok: true; location: string; files: number | null }
  | {
      ok: false;
      status: number;
      reply: {
        result: SubmissionResult<string[]> | null;
        problem: UploadProblem | null;
        kept: KeptFiles | null;
      };
    };

/**
 * The Add Photo, Add File and Add Video sheets' save, once withUpload has read the form: the
 * files sent, else those kept; a photo's or clip's empty title filled from them; the item saved
 * and the draft it came from gone, or the form refused with its files kept. `files`: how many
 * the item has, null for a repeat answered with where the first save led.
 */
export async function addUploadFromSheet(
  user: { id: number; timeZone: string },
  folderId: number,
  type: UploadType,
  { formData, stored }: { formData: FormData; stored: StoredUpload[] },
): Promise<SheetUploadAnswer> {
  const sheet = sheetFiles(user.id, type, formData, stored);
  const at = { date: new Date(), timeZone: user.timeZone };
  const filled = withUploadTitle(formData, type, sheet.files, at);
  const oneTimeKey = oneTimeKeyOf(formData);
  let location: string;
  try {
    const submission = parseWithZod(filled, { schema: schemaFor(type) });
    const noFiles = sheet.files.length === 0;
    // A repeat of an add from kept files (a double tap): their draft went with the first save.
    const earlier = noFiles ? savedWithKey(user.id, oneTimeKey) : null;
    if (earlier) return { ok: true, location: earlier, files: null };
    if (submission.status !== "success" || noFiles) {
      const result = submission.reply(
        noFiles && submission.status === "success"
          ? { formErrors: [`Please select at least one ${type}`] }
          : undefined,
      );
      const title = String(filled.get("title") ?? "");
      const { kept, problem } = await keepRefusedFiles(user.id, type, sheet, stored, title);
      return { ok: false, status: 400, reply: { result, problem, kept } };
    }
    // A repeat's files are left unreferenced, and withUpload deletes them.
    const target = { folderId, oneTimeKey, fromDraftId: sheet.draft?.id };
    ({ location } = await saveItem(user.id, target, submission.value, sheet.files));
  } catch (error) {
    const mapped = uploadProblemFor(error) ?? unexpectedSaveProblem(error, "add", type);
    const reply = {
      result: typedValues(filled, type),
      problem: mapped.problem,
      kept: keptFilesOf(sheet.draft),
    };
    return { ok: false, status: mapped.status, reply };
  }
  await releaseKeptFiles(user.id, sheet);
  return { ok: true, location, files: sheet.files.length };
}

/** The files a sheet's form goes with: those sent now, else those its last refusal kept. */
export type SheetFiles = { files: StoredUpload[]; draft: UploadDraft | null };

export function sheetFiles(
  userId: number,
  type: UploadType,
  formData: FormData | undefined,
  stored: StoredUpload[],
): SheetFiles {
  const draft = keptDraftOf(userId, type, formData);
  return { files: stored.length > 0 ? stored : (draft?.files ?? []), draft };
}

/** The draft the form names, if it is the sender's own, unexpired and of the sheet's type. */
function keptDraftOf(userId: number, type: UploadType, formData: FormData | undefined) {
  const id = formData?.get(KEPT_FILES_FIELD);
  if (typeof id !== "string" || id === "") return null;
  try {
    const draft = getDraft(userId, id);
    return draft.type === type && draft.files.length > 0 ? draft : null;
  } catch (error) {
    if (error instanceof DraftNotFoundError) return null;
    throw error;
  }
}

/** What the form says of a draft: its id, sent back, and its files' names; never the keys. */
export function keptFilesOf(draft: Pick<UploadDraft, "id" | "files"> | null): KeptFiles | null {
  if (!draft || draft.files.length === 0) return null;
  return { draftId: draft.id, names: draft.files.map((file) => file.name) };
}

/**
 * A form refused for its fields: the files sent with it become the sheet's draft, replacing
 * those kept before; sent without files, what was kept stays. A draft counts against the
 * sender's storage: without room nothing new is kept, and "Storage Full!" says so.
 */
export async function keepRefusedFiles(
  userId: number,
  type: UploadType,
  sheet: SheetFiles,
  stored: StoredUpload[],
  title: string,
): Promise<{ kept: KeptFiles | null; problem: UploadProblem | null }> {
  if (stored.length === 0) return { kept: keptFilesOf(sheet.draft), problem: null };
  // The wizard reads a draft's fields; a refused form's are not valid, so only its title is kept.
  const fields = QuickUploadDetailsSchema.parse({ title: clipTitle(title) });
  try {
    if (sheet.draft) {
      await updateDraftContent(userId, sheet.draft.id, fields, stored);
      return { kept: keptFilesOf({ id: sheet.draft.id, files: stored }), problem: null };
    }
    return { kept: keptFilesOf(await createDraft(userId, type, fields, stored)), problem: null };
  } catch (error) {
    if (!(error instanceof QuotaExceededError)) throw error;
    return { kept: keptFilesOf(sheet.draft), problem: uploadProblemFor(error)?.problem ?? null };
  }
}

/** Once the item is saved: the draft goes, and its files unless the item now holds them. */
export async function releaseKeptFiles(userId: number, sheet: SheetFiles) {
  if (sheet.draft) await discardDraft(userId, sheet.draft.id);
}

/** An upload refused while it was read (a file too large): what was kept before is still kept. */
export function stillKept(userId: number, type: UploadType, fieldsRead: FormData | undefined) {
  return keptFilesOf(keptDraftOf(userId, type, fieldsRead));
}
