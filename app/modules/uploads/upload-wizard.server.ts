import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ItemFormValues, UploadProblem } from "~/modules/items/item-validation";
import { type ItemType, schemaFor } from "~/modules/items/item-validation";
import { selectAFile, WIZARD_TYPES, type WizardType } from "./multi-folder";
import type { DraftFields, UploadDraft } from "./upload-drafts.server";

/** Route helpers of the multi-folder wizard (app/routes/upload+). */

export function parseWizardType(value: string | null): WizardType {
  return WIZARD_TYPES.includes(value as WizardType) ? (value as WizardType) : "link";
}

export type ContentStepReply = {
  result: SubmissionResult<string[]> | null;
  problem: UploadProblem | null;
};

/**
 * The content step's fields through the type's schema. Photos and files also
 * need at least one file: newly chosen (`hasFiles`) or already in the draft.
 */
export function readContentFields(
  formData: FormData,
  type: ItemType,
  hasFiles: boolean,
): { ok: true; fields: DraftFields } | { ok: false; reply: ContentStepReply; status: number } {
  const submission = parseWithZod(formData, { schema: schemaFor(type) });
  const isUpload = type === "photo" || type === "file" || type === "video";
  if (submission.status === "success" && (hasFiles || !isUpload)) {
    return { ok: true, fields: submission.value as DraftFields };
  }
  const noFiles = submission.status === "success" && isUpload;
  return {
    ok: false,
    reply: {
      result: submission.reply(noFiles ? { formErrors: [selectAFile(type)] } : {}),
      problem: null,
    },
    status: submission.status || noFiles ? 400 : 200,
  };
}

/** The draft's saved fields as the content form shows them (going back loses nothing). */
export function draftFormValues(draft: UploadDraft): ItemFormValues {
  const fields = draft.fields as Partial<Record<string, unknown>>;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const urls = Array.isArray(fields.urls) ? fields.urls.map(text) : [];
  return {
    title: text(fields.title),
    urls: urls.length > 0 ? urls : [""],
    note: text(fields.note),
    addComment: fields.addComment === true,
    askQuestion: fields.askQuestion === true,
    commentText: text(fields.commentText),
    questionText: text(fields.questionText),
    responseExpectation:
      fields.responseExpectation === "expecting"
        ? "yes"
        : fields.responseExpectation === "not_expecting"
          ? "none"
          : "na",
  };
}

/** What the wizard shows of the draft: never the storage keys. */
export function draftSummary(draft: UploadDraft) {
  return {
    id: draft.id,
    type: draft.type,
    title: typeof draft.fields.title === "string" ? draft.fields.title : "",
    files: draft.files.map((file, index) => ({ index, name: file.name, size: file.size })),
    folderIds: draft.folderIds,
  };
}

export type DraftSummary = ReturnType<typeof draftSummary>;
