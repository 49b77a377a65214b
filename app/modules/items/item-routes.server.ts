import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { UploadRejectedError } from "~/modules/files/upload-rejected.server";
import { invariantResponse, throwIfDatabaseBusy } from "~/platform/errors.server";
import { ItemRuleError, QuotaExceededError } from "./item-rules.server";
import type { KeptFiles, UploadProblem } from "./item-validation";
import { ITEM_TYPES, type ItemType, schemaFor } from "./item-validation";

export function parseItemType(value: string | undefined): ItemType {
  invariantResponse(ITEM_TYPES.includes(value as ItemType));
  return value as ItemType;
}

export function parseItemId(value: string | FormDataEntryValue | null | undefined) {
  const id = Number(value);
  invariantResponse(Number.isSafeInteger(id) && id > 0);
  return id;
}

/**
 * What the user typed, for the form to show again after a refused upload:
 * the values only, without field errors (when the upload stopped part-way,
 * the fields after the files were never read, and are not wrong).
 */
export function typedValues(formData: FormData | undefined, type: ItemType) {
  if (!formData) return null;
  const reply = parseWithZod(formData, { schema: schemaFor(type) }).reply();
  return { ...reply, error: undefined };
}

/**
 * The answer to an upload refused while it was being read (File Too Large,
 * Storage Full!, a disguised file): its message (docs/product-rules.md, Pages and messages), and the text fields
 * read before the refusal shown again, with the files an Add sheet still keeps (`kept`, from
 * those fields). Any other error is thrown on.
 */
export function refusedUploadReply(
  error: unknown,
  type: ItemType,
  kept: (fieldsRead: FormData | undefined) => KeptFiles | null = () => null,
) {
  const mapped = uploadProblemFor(error);
  if (!mapped) throw error;
  const fieldsRead = error instanceof UploadRejectedError ? error.fieldsRead : undefined;
  return data(
    { result: typedValues(fieldsRead, type), problem: mapped.problem, kept: kept(fieldsRead) },
    { status: mapped.status },
  );
}

/**
 * For an item that could not be saved for a reason the user cannot fix (the
 * database refused): logged for the operator, and shown in the form as the
 * "Failed to add {type}" / "Failed to update {type}" (docs/product-rules.md, Pages and messages), so the user keeps
 * what they typed instead of landing on an error page. A Response thrown on
 * purpose (a 404) passes through.
 */
export function unexpectedSaveProblem(
  error: unknown,
  verb: "add" | "update",
  type: ItemType,
): { problem: UploadProblem; status: number } {
  if (error instanceof Response) throw error;
  throwIfDatabaseBusy(error);
  console.error(error);
  return {
    problem: { title: `Failed to ${verb} ${type}`, description: "Please try again." },
    status: 500,
  };
}

/** The upload messages (docs/product-rules.md, Pages and messages): a title and what to do about it. */
export function uploadProblemFor(
  error: unknown,
): { problem: UploadProblem; status: number } | null {
  if (error instanceof QuotaExceededError) {
    return { problem: { title: "Storage Full!", description: error.message }, status: 413 };
  }
  if (error instanceof UploadRejectedError) {
    const fileName = error.fileName;
    if (error.code === "EMAIL_NOT_VERIFIED") {
      return {
        problem: { title: "Confirm your email address first", description: error.message },
        status: error.status,
      };
    }
    if (error.code === "FILE_TOO_LARGE") {
      return {
        problem: { title: "File Too Large", description: error.message, fileName },
        status: 413,
      };
    }
    if (error.status === 413) {
      return { problem: { title: "Upload Error", description: error.message }, status: 413 };
    }
    return {
      problem: { title: "Upload Failed", description: error.message, fileName },
      status: error.status,
    };
  }
  if (error instanceof ItemRuleError) {
    return { problem: { title: "Upload Failed", description: error.message }, status: 400 };
  }
  return null;
}
