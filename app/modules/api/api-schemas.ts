import { ANSWER_EMAILS, FREQUENCIES } from "~/modules/folders/folder-validation";
import { ITEM_TYPES, LinkFieldsSchema, MusingFieldsSchema } from "~/modules/items/item-validation";
import { LIMITS } from "~/modules/plans/limits";
import { z } from "~/platform/zod";
import { API_TOKEN_SCOPES } from "./api-token-validation";
import { withoutDefaults } from "./seed-shapes";

/**
 * What the JSON API answers, as zod schemas: every answer is parsed through
 * its schema before it is sent, and the OpenAPI document is generated from the
 * same schemas, so the document cannot drift from what is served. Request
 * bodies use the forms' own schemas (folder-validation.ts, item-validation.ts).
 */
export const ApiErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    fields: z.record(z.string(), z.array(z.string())).optional(),
  }),
});

export const FolderViewSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  recipients: z.array(z.object({ name: z.string(), email: z.string() })),
  frequency: z.enum(FREQUENCIES),
  dayOfWeek: z.number().int(),
  dayOfMonth: z.number().int().nullable(),
  ccSender: z.boolean(),
  personalSignoff: z.string().nullable(),
  answerEmails: z
    .enum(ANSWER_EMAILS)
    .describe(
      "How recipients' answers reach you by e-mail: daily (gathered once a day), each (every note at once, hearts daily) or none",
    ),
  isPaused: z.boolean(),
  pauseReason: z.string().nullable(),
  isUnsubscribed: z.boolean(),
  nextSendAt: z.string().nullable(),
  skippedSendAt: z
    .string()
    .nullable()
    .describe("The skipped delivery while it is ahead; `nextSendAt` is the one after it"),
  issueNote: z.string().nullable().describe("A few words at the top of the next issue only"),
  lastSentAt: z.string().nullable(),
  sortOrder: z.number().int(),
  itemCount: z.number().int().describe("Items waiting for the next issue"),
  totalSize: z.number().int().describe("Bytes of those items' files"),
  maxSize: z.number().int().describe("The folder's cap in bytes (lower with an iCloud recipient)"),
  nextIssue: z
    .object({
      recipients: z.number().int().describe("Recipients listed"),
      willGetIt: z.number().int().describe("How many of them the next issue will reach"),
      missing: z
        .array(
          z.object({
            name: z.string(),
            email: z.string(),
            because: z.enum(["unsubscribed", "complaint", "bounced"]),
          }),
        )
        .describe("Those it will not reach, and why"),
      line: z
        .string()
        .describe('As the folder card says it: "2 of 3 will get it: Mum\'s address bounced"'),
    })
    .describe("Who will get the next issue (docs/decisions/0210-counts-that-are-true.md)"),
});

export const ItemViewSchema = z.object({
  id: z.number().int(),
  folderId: z.number().int(),
  type: z.enum(ITEM_TYPES),
  title: z.string(),
  urls: z.array(z.string()),
  note: z.string().nullable(),
  addComment: z.boolean(),
  commentText: z.string().nullable(),
  askQuestion: z.boolean(),
  questionText: z.string().nullable(),
  responseExpectation: z.enum(["na", "not_expecting", "expecting"]),
  files: z.array(z.object({ index: z.number().int(), name: z.string(), size: z.number().int() })),
  needsNote: z
    .boolean()
    .describe(
      "A link, photo or file with neither a comment nor a question: it stays in the folder, not sent, until it has one",
    ),
  video: z
    .object({
      status: z
        .enum(["preparing", "ready", "failed"])
        .describe(
          "preparing: being made playable in the background; ready: sent with the next issue; failed: refused, see `error`",
        ),
      progress: z.number().int().min(0).max(100).describe("Percent prepared"),
      error: z
        .string()
        .nullable()
        .describe("Why the clip was refused, in the words the folder shows"),
    })
    .nullable()
    .describe(
      "A video's preparation (transcoded in the background after the upload; a clip not ready at the send waits for the next issue); null for other items",
    ),
  preview: z
    .object({
      status: z.enum(["pending", "ready", "failed", "removed"]),
      title: z.string().nullable(),
      description: z.string().nullable(),
      siteName: z.string().nullable(),
    })
    .nullable()
    .describe(
      "A link's preview card, fetched in the background after the link is saved (pending until then); null for other items",
    ),
});

export const PaginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  hasMore: z.boolean(),
  hasPrevious: z.boolean(),
});

export const FolderWithItemsSchema = z.object({
  folder: FolderViewSchema,
  items: z.array(ItemViewSchema),
  pagination: PaginationSchema,
});

export const UsageSchema = z.object({
  folderCount: z.number().int(),
  totalStorageBytes: z.number().int(),
  subscriptionTier: z.enum(["free", "premium"]),
  limits: z.object({
    maxFolders: z.number().int().nullable().describe("null: unlimited"),
    maxStorageBytes: z.number().int().nullable().describe("null: unlimited"),
  }),
});

export const ReferralStatsSchema = z.object({
  referralCode: z.string().nullable(),
  referralLink: z.string().nullable(),
  completedReferrals: z.number().int(),
  bonusFolders: z.number().int(),
  bonusStorageBytes: z.number().int(),
});

export const PreviewSchema = z.object({
  subject: z.string().nullable(),
  html: z.string().nullable(),
  text: z.string().nullable(),
});

export const SendResultSchema = z.object({
  messages: z.number().int(),
  pending: z.number().int(),
});

export const RecipientStateSchema = z.object({
  email: z.string(),
  status: z.string(),
  resubscribeRequestedAt: z.string().nullable(),
});

export const TokenInfoSchema = z.object({
  scope: z.enum(API_TOKEN_SCOPES),
  user: z.object({ email: z.string(), firstName: z.string().nullable() }),
});

export const DirectionSchema = z.object({ direction: z.enum(["up", "down"]) });
export const PauseSchema = z.object({ paused: z.boolean().optional() });
export const SkipSchema = z.object({
  skipped: z.boolean().describe("true skips the next issue, false brings the skipped one back"),
});
export const ResubscriptionSchema = z.object({ email: z.string().trim().min(1) });
/** The most items one page of the API holds: a folder's page stays a small answer. */
export const API_MAX_PAGE_SIZE = 100;

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(LIMITS.item.pageSize)
    .transform((limit) => Math.min(limit, API_MAX_PAGE_SIZE))
    .describe(
      `Items per page (at most ${API_MAX_PAGE_SIZE}; more is read as ${API_MAX_PAGE_SIZE})`,
    ),
});
/** Listing recipients' answers (docs/decisions/0165-answers-api-walks-forward.md). */
export const AnswersQuerySchema = z.object({
  folderId: z.coerce.number().int().min(1).optional().describe("Only this folder's answers"),
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "An answer id: the answers that came after it, oldest first (without it: the newest first)",
    ),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((limit) => Math.min(limit, API_MAX_PAGE_SIZE))
    .describe(
      `Answers per call (at most ${API_MAX_PAGE_SIZE}; more is read as ${API_MAX_PAGE_SIZE})`,
    ),
});

export const AnswerViewSchema = z.object({
  id: z.number().int(),
  folderId: z.number().int(),
  issueId: z.number().int().describe("The sent issue (as in the Sent archive)"),
  itemId: z.number().int(),
  recipient: z.string().describe("The recipient's e-mail address"),
  name: z.string().describe("Their name on the folder's list now, else their address"),
  kind: z.enum(["heart", "note"]),
  text: z.string().nullable().describe("A note's plain text as written; null for a heart"),
  createdAt: z.string(),
});

export const AnswerListSchema = z.object({
  answers: z.array(AnswerViewSchema),
  hasMore: z
    .boolean()
    .describe("More answers match: with `after`, call again with the last id returned"),
});

export const UploadQuerySchema = z.object({
  type: z
    .enum(["photo", "file", "video"])
    .optional()
    .describe("The item's kind; left out, the first file's bytes decide it (a clip makes a video)"),
});

/** Adding a link or a musing: `type` picks the form's schema. */
export const NewTextItemSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("link") }),
  z.looseObject({ type: z.literal("musing") }),
]);

const multipartBoolean = z
  .enum(["true", "false", "on", "off", "1", "0"])
  .optional()
  .describe("Yes: true, on or 1; no: false, off or 0");

/** The multipart fields of an upload, for the document (the pipeline reads them). */
export const UploadFieldsSchema = z.object({
  files: z.array(z.string().describe("binary")),
  title: z.string(),
  addComment: multipartBoolean,
  commentText: z.string().optional(),
  askQuestion: multipartBoolean,
  questionText: z.string().optional(),
  responseExpectation: z.string().optional(),
});

/** Adding files to an item: only the files; a text field sent replaces the item's. */
export const AddFilesFieldsSchema = UploadFieldsSchema.partial().required({ files: true });

/**
 * An item's edit, in part: any of its edit form's fields (a link's, a
 * musing's or an upload's, as the item is); each one left out keeps its value.
 */
export const ItemUpdateSchema = z.object(
  withoutDefaults({ ...LinkFieldsSchema.shape, note: MusingFieldsSchema.shape.note }),
);

/** The fields of a new link or musing, for the document (QuickLinkSchema and MusingSchema check them). */
export const documentedTextItemSchemas = { link: LinkFieldsSchema, musing: MusingFieldsSchema };
export const OkSchema = z.object({ ok: z.literal(true) });
