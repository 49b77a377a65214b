import { FolderFieldsSchema } from "~/modules/folders/folder-validation";
import { LIMITS } from "~/modules/plans/limits";
import { z } from "~/platform/zod";

/**
 * Bodies shaped like the seed's own calls (docs/decisions/0153-api-takes-the-seeds-shapes.md),
 * turned into what the forms' schemas read, so the API keeps every rule of the forms.
 */

/**
 * The Folder Details fields an update may carry (the form's object, before its checks); null
 * clears the sign-off. A field left out stays out, for seedFolderBody to keep its value: in zod 4
 * an optional field with a default would take the default, so the defaults are taken off first.
 */
const recipientRows = FolderFieldsSchema.shape.recipients.unwrap();

export const FolderUpdateSchema = z.looseObject({
  ...withoutDefaults(FolderFieldsSchema.shape),
  // The rows' shape only: their rules (a valid address, a name) are the form's, checked after
  // with every other message of the form.
  recipients: z
    .array(z.object(recipientRows.element.shape))
    .max(LIMITS.folder.maxRecipients)
    .optional(),
  dayOfMonth: FolderFieldsSchema.shape.dayOfMonth
    .unwrap()
    .nullable()
    .optional()
    .describe(
      "1 to 31 for a monthly folder; null (the seed's value for other folders) is left out",
    ),
  personalSignoff: z.string().nullable().optional(),
});

export function withoutDefaults<Shape extends z.core.$ZodShape>(shape: Shape) {
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [key, optionalWithoutDefault(field)]),
  ) as { [Key in keyof Shape]: z.ZodOptional<z.ZodType<z.output<Shape[Key]>>> };
}

/** The field made optional, without its default, still described as it was. */
function optionalWithoutDefault(field: z.core.$ZodType) {
  if (!(field instanceof z.ZodDefault)) return z.optional(field);
  const optional = z.optional(field.unwrap());
  return field.description ? optional.describe(field.description) : optional;
}

type CurrentFolder = {
  name: string;
  recipients: { name: string; email: string }[];
  frequency: string;
  dayOfWeek: number;
  dayOfMonth: number | null;
  ccSender: boolean;
  personalSignoff: string | null;
  answerEmails: string;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A folder body as the seed sends it: a sign-off given is a sign-off wanted
 * (the form's `signoffEnabled` box is needed only to say otherwise), null
 * clears it, and on an update (`current`) every field left out (or null) keeps its value.
 */
export function seedFolderBody(body: unknown, current?: CurrentFolder): unknown {
  if (!isRecord(body)) return body;
  // The seed sends `dayOfMonth: null` for a weekly folder: a null is a field left out, but for
  // the sign-off, where it means none.
  const given = Object.fromEntries(
    Object.entries(body).filter(
      ([key, value]) => value !== undefined && (value !== null || key === "personalSignoff"),
    ),
  );
  const merged: Record<string, unknown> = current
    ? {
        name: current.name,
        recipients: current.recipients,
        frequency: current.frequency,
        dayOfWeek: current.dayOfWeek,
        dayOfMonth: current.dayOfMonth ?? undefined,
        ccSender: current.ccSender,
        personalSignoff: current.personalSignoff,
        answerEmails: current.answerEmails,
        ...given,
      }
    : given;
  const signoff = typeof merged.personalSignoff === "string" ? merged.personalSignoff : undefined;
  return {
    ...merged,
    personalSignoff: signoff,
    signoffEnabled: "signoffEnabled" in given ? given.signoffEnabled : Boolean(signoff?.trim()),
  };
}

/** The text fields of a photo or file item, as its upload form names them. */
const UPLOAD_DETAIL_FIELDS = [
  "title",
  "addComment",
  "commentText",
  "askQuestion",
  "questionText",
  "responseExpectation",
] as const;

type CurrentUploadItem = {
  title: string;
  addComment: boolean;
  commentText: string | null;
  askQuestion: boolean;
  questionText: string | null;
  responseExpectation: string;
};

/**
 * Adding files sends the files (and the seed's `itemId` and `type`), not the
 * item's text again: each text field left out of the form keeps the item's value.
 */
export function withItemDetails(formData: FormData, item: CurrentUploadItem): FormData {
  const completed = new FormData();
  for (const [key, value] of formData) completed.append(key, value);
  for (const field of UPLOAD_DETAIL_FIELDS) {
    if (formData.has(field)) continue;
    const value = item[field];
    if (value !== null) completed.set(field, String(value));
  }
  return completed;
}

type CurrentItem = CurrentUploadItem & { urls: string[]; note: string | null };

/**
 * An item's edit as its form reads it: the fields the body gives over the
 * item's own, so an edit may send only what changes.
 */
export function withItemValues(
  body: Record<string, unknown>,
  item: CurrentItem,
): Record<string, unknown> {
  const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  return {
    title: item.title,
    urls: item.urls,
    note: item.note ?? undefined,
    addComment: item.addComment,
    commentText: item.commentText ?? undefined,
    askQuestion: item.askQuestion,
    questionText: item.questionText ?? undefined,
    responseExpectation: item.responseExpectation,
    ...given,
  };
}
