import { LIMITS } from "~/modules/plans/limits";
import { formBoolean } from "~/platform/form-boolean";
import { z } from "~/platform/zod";

/**
 * The add/edit content forms, one schema per item type, shared by the browser
 * and the action. The messages' wording is the product's (docs/product-rules.md, Pages and messages).
 */
export const ITEM_TYPES = ["link", "musing", "photo", "file", "video"] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

/** A link that is not a URL, on saving. */
export const INVALID_URL = "Invalid URL format";
/** A link that is not a URL, when Enter or Tab would add the next link field. */
export const INVALID_URL_ON_KEY = "Please enter a valid URL";
export const MISSING_FIELDS =
  "Invalid content data: missing required fields based on content type and options";
export const CHOOSE_AN_OPTION =
  "Please select at least one option: Leave a comment or Ask a question";

/**
 * Optional in the object and required in the refinements below: a missing
 * field (conform sends an empty one as undefined) would otherwise abort the
 * parse before the cross-field checks, and the URL, note, comment and
 * question messages must show together with this one.
 */
const title = z.string().trim().max(LIMITS.item.titleMaxLength, "Title too long").optional();

function checkTitle(value: { title?: string }, context: z.RefinementCtx) {
  if (!value.title) {
    context.addIssue({ code: "custom", path: ["title"], message: "Title is required" });
  }
}

/** Empty or unknown is na, "none"/"no" not_expecting, "yes" expecting (docs/product-rules.md, Folders and items). */
export const responseExpectation = z
  .string()
  .optional()
  .transform((value) => {
    if (value === "yes" || value === "expecting") return "expecting" as const;
    if (value === "none" || value === "no" || value === "not_expecting") {
      return "not_expecting" as const;
    }
    return "na" as const;
  });

/** Host names (IDNs arrive as punycode) or a bracketed IPv6 address. */
const HOSTNAME = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/i;

/**
 * An http(s) URL with a real host. The host is checked here rather than left
 * to the URL parser: Chromium's accepts "https://not a url" (it percent-encodes
 * the spaces) where Node's refuses it, and the browser and the server must agree.
 */
export function isValidUrl(value: string) {
  if (value.length > LIMITS.item.urlMaxLength || /[\s<>"`]/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && HOSTNAME.test(url.hostname);
  } catch {
    return false;
  }
}

/** A URL typed without a scheme ("example.com/page") is read as https. */
export function normalizeUrl(value: string) {
  const trimmed = value.trim();
  if (!trimmed) return trimmed;
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
}

const reasonFields = {
  addComment: formBoolean(),
  askQuestion: formBoolean(),
  commentText: z.string().trim().max(LIMITS.item.textMaxLength, "Comment too long").optional(),
  questionText: z.string().trim().max(LIMITS.item.textMaxLength, "Question too long").optional(),
  responseExpectation,
};

type Reasons = {
  addComment: boolean;
  askQuestion: boolean;
  commentText?: string;
  questionText?: string;
};

/**
 * A quick save (docs/decisions/0134-quick-saves-wait-for-a-note.md) may leave
 * the title, which the server then fills in, and the comment or question,
 * which the item then waits for before it is sent.
 */
type Strictness = { quickSave: boolean };

/**
 * "Leave a comment" starts ticked in the app's sheets (docs/decisions/0199-the-app-fills-what-it-knows.md):
 * left empty beside an asked question, it is no comment rather than a refusal.
 */
function givesComment(value: Reasons) {
  return value.addComment && (Boolean(value.commentText) || !asksQuestion(value));
}

function asksQuestion(value: Reasons) {
  return value.askQuestion && Boolean(value.questionText);
}

function checkReasons(
  value: Reasons & { title?: string },
  context: z.RefinementCtx,
  { quickSave }: Strictness = { quickSave: false },
) {
  if (!quickSave && !value.addComment && !value.askQuestion) {
    context.addIssue({ code: "custom", path: ["addComment"], message: CHOOSE_AN_OPTION });
  }
  if (givesComment(value) && !value.commentText) {
    context.addIssue({ code: "custom", path: ["commentText"], message: MISSING_FIELDS });
  }
  if (value.askQuestion && !value.questionText) {
    context.addIssue({ code: "custom", path: ["questionText"], message: MISSING_FIELDS });
  }
}

/** Comment and question text are kept only when their box is ticked. */
function keptReasons<T extends Reasons & { title?: string }>(value: T) {
  const addComment = givesComment(value);
  return {
    ...value,
    addComment,
    title: value.title ?? "",
    commentText: addComment ? (value.commentText ?? null) : null,
    questionText: value.askQuestion ? (value.questionText ?? null) : null,
  };
}

/** A link's fields, each checked on its own: the form's object before its checks. */
export const LinkFieldsSchema = z.object({
  title,
  urls: z.array(z.string().optional()).default([]),
  ...reasonFields,
});

function linkSchema(strictness: Strictness) {
  return LinkFieldsSchema.superRefine((value, context) => {
    const typed = value.urls.map((url) => url?.trim() ?? "");
    typed.forEach((url, index) => {
      if (url && !isValidUrl(normalizeUrl(url))) {
        context.addIssue({
          code: "custom",
          path: ["urls", index],
          message: INVALID_URL,
        });
      }
    });
    const unique = new Set(typed.filter(Boolean).map(normalizeUrl));
    if (unique.size === 0) {
      context.addIssue({ code: "custom", path: ["urls"], message: MISSING_FIELDS });
    }
    if (unique.size > LIMITS.item.maxLinks) {
      context.addIssue({ code: "custom", path: ["urls"], message: "Maximum 5 URLs allowed" });
    }
    checkReasons(value, context, strictness);
  }).transform((value) => ({
    ...keptReasons(value),
    type: "link" as const,
    urls: [...new Set(value.urls.map((url) => normalizeUrl(url ?? "")).filter(Boolean))],
  }));
}

/**
 * A link's title may be left empty in every sheet: the app fills it from the page, or from the
 * address (./item-titles.server.ts, docs/decisions/0199-the-app-fills-what-it-knows.md).
 */
export const LinkSchema = linkSchema({ quickSave: false });
/** A link saved from the share sheet, the bookmarklet or the extension: title and note may wait. */
export const QuickLinkSchema = linkSchema({ quickSave: true });

/** A musing's fields, each checked on its own: the form's object before its checks. */
export const MusingFieldsSchema = z.object({
  title,
  note: z.string().trim().max(LIMITS.item.textMaxLength, "Note too long").optional(),
});

export const MusingSchema = MusingFieldsSchema.superRefine((value, context) => {
  checkTitle(value, context);
  if (!value.note) context.addIssue({ code: "custom", path: ["note"], message: MISSING_FIELDS });
}).transform((value) => ({
  type: "musing" as const,
  title: value.title ?? "",
  note: value.note ?? "",
}));

function uploadDetailsSchema(strictness: Strictness) {
  return z
    .object({ title, ...reasonFields })
    .superRefine((value, context) => {
      if (!strictness.quickSave) checkTitle(value, context);
      checkReasons(value, context, strictness);
    })
    .transform((value) => keptReasons(value));
}

/** Photos and files: the text fields (the files themselves are checked by the upload pipeline). */
export const UploadDetailsSchema = uploadDetailsSchema({ quickSave: false });
/** Photos and files saved through the API: title and note may wait, as for a quick link. */
export const QuickUploadDetailsSchema = uploadDetailsSchema({ quickSave: true });

/** The items whose content is uploaded files. */
export type UploadType = Exclude<ItemType, "link" | "musing">;

/**
 * The form of each type. Every output carries its `type`, so what a form parses to is an
 * `ItemInput` that `saveItem` (./save-item.server.ts) takes as it is.
 */
export function schemaFor(type: ItemType) {
  if (type === "link") return LinkSchema;
  if (type === "musing") return MusingSchema;
  return UploadDetailsSchema.transform((value) => ({ ...value, type }));
}

export type LinkInput = z.output<typeof LinkSchema>;
export type MusingInput = z.output<typeof MusingSchema>;
export type UploadDetailsInput = z.output<typeof UploadDetailsSchema>;
/** A photo, file or video item's fields, with its type. */
export type UploadInput = UploadDetailsInput & { type: UploadType };
/** One item's fields as its form parses them, told apart by `type`. */
export type ItemInput = LinkInput | MusingInput | UploadInput;

/** What the item form holds: its default values and what an action hands back to it. */
export type ItemFormValues = {
  title: string;
  urls: string[];
  note: string;
  addComment: boolean;
  askQuestion: boolean;
  commentText: string;
  questionText: string;
  responseExpectation: "na" | "none" | "yes";
};

export const EMPTY_ITEM: ItemFormValues = {
  title: "",
  urls: [""],
  note: "",
  addComment: false,
  askQuestion: false,
  commentText: "",
  questionText: "",
  responseExpectation: "na",
};

/** A new item in the app's sheets: "Leave a comment" is open, the note being the point. */
export const NEW_ITEM: ItemFormValues = { ...EMPTY_ITEM, addComment: true };

/**
 * Why a file upload failed, shown in the form's error summary (docs/product-rules.md, Pages and
 * messages); `fileName`, the one file the server refused, which the form marks and drops.
 */
export type UploadProblem = { title: string; description: string; fileName?: string };

/**
 * Files an Add sheet's refused form left on the server, in a draft of the sender's
 * (app/modules/uploads/kept-files.server.ts): the form sends the draft's id back in
 * KEPT_FILES_FIELD and names the files, so the next submit needs no second pick.
 */
export type KeptFiles = { draftId: string; names: string[] };
export const KEPT_FILES_FIELD = "keptFiles";

/** "IMG_2041.jpg is kept", "a.jpg and b.jpg are kept", "a.jpg, b.jpg and c.jpg are kept". */
export function keptSentence(names: string[]) {
  if (names.length <= 1) return `${names[0] ?? ""} is kept`;
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)} are kept`;
}
