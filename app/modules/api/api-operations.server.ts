import { listAnswers } from "~/modules/answers/answers.server";
import { referralLink, referralStats } from "~/modules/billing/referrals.server";
import { suppressedAddressRefusal } from "~/modules/deliverability/suppression-notices.server";
import { FolderBodySchema } from "~/modules/folders/folder-validation";
import {
  createFolder,
  deleteFolder,
  type Folder,
  getFolder,
  listFolders,
  moveFolder,
  recipientsOf,
  togglePause,
  updateFolder,
} from "~/modules/folders/folders.server";
import { setIssueNote } from "~/modules/folders/issue-note.server";
import { IssueNoteSchema } from "~/modules/folders/issue-note-validation";
import { activeSkip, skipNextIssue, undoSkip } from "~/modules/folders/skip.server";
import { getItem } from "~/modules/items/item-rules.server";
import { titleForUpload } from "~/modules/items/item-titles";
import {
  MusingSchema,
  QuickLinkSchema,
  QuickUploadDetailsSchema,
  schemaFor,
} from "~/modules/items/item-validation";
import {
  deleteItem,
  type Item,
  type ListedItem,
  listItems,
  moveItem,
  removeItemFile,
} from "~/modules/items/items.server";
import { needsNote } from "~/modules/items/needs-note";
import { saveItem } from "~/modules/items/save-item.server";
import { LIMITS } from "~/modules/plans/limits";
import {
  type FolderStats,
  folderSizeLimit,
  folderStats,
  getUsage,
} from "~/modules/plans/quota.server";
import { nextIssueLine } from "~/modules/recipients/next-issue-line";
import {
  type NextIssueReach,
  nextIssueReach,
  recipientStates,
  requestResubscription,
} from "~/modules/recipients/recipients.server";
import { renderPreview } from "~/modules/sending/preview.server";
import { sendNow } from "~/modules/sending/sending.server";
import { sendWelcomesSoon } from "~/modules/sending/welcomes.server";
import { type UploadKindChoice, withUpload } from "~/modules/uploads/uploads.server";
import { z } from "~/platform/zod";
import {
  type ApiContext,
  type ApiOperation,
  compileOperations,
  notFound,
  parseFormFields,
  validationError,
} from "./api.server";
import {
  AddFilesFieldsSchema,
  AnswerListSchema,
  AnswersQuerySchema,
  type AnswerViewSchema,
  DirectionSchema,
  FolderViewSchema,
  FolderWithItemsSchema,
  ItemUpdateSchema,
  ItemViewSchema,
  NewTextItemSchema,
  OkSchema,
  PageQuerySchema,
  PauseSchema,
  PreviewSchema,
  RecipientStateSchema,
  ReferralStatsSchema,
  ResubscriptionSchema,
  SendResultSchema,
  SkipSchema,
  TokenInfoSchema,
  UploadFieldsSchema,
  UploadQuerySchema,
  UsageSchema,
} from "./api-schemas";
import { FolderUpdateSchema, seedFolderBody, withItemDetails, withItemValues } from "./seed-shapes";

/**
 * Every operation of the JSON API: a sender's calls (docs/product-rules.md, Pages and messages), each
 * a thin call into the same domain functions the pages use, so every limit
 * and rule is the web app's. Ownership is checked by those functions (another
 * user's folder or item is not found).
 */
const iso = (date: Date | null) => (date ? date.toISOString() : null);
const finiteOrNull = (value: number) => (Number.isFinite(value) ? value : null);

const EMPTY_FOLDER: FolderStats = { itemCount: 0, totalSize: 0 };

function folderView(
  folder: Folder,
  stats: FolderStats = folderStats(folder.userId).get(folder.id) ?? EMPTY_FOLDER,
  reach: NextIssueReach = nextIssueReach([folder]).get(folder.id)!,
): z.input<typeof FolderViewSchema> {
  const recipients = recipientsOf(folder);
  return {
    id: folder.id,
    name: folder.name,
    recipients,
    frequency: folder.frequency,
    dayOfWeek: folder.dayOfWeek,
    dayOfMonth: folder.dayOfMonth,
    ccSender: folder.ccSender,
    personalSignoff: folder.personalSignoff,
    answerEmails: folder.answerEmails,
    isPaused: folder.isPaused,
    pauseReason: folder.pauseReason,
    isUnsubscribed: folder.isUnsubscribed,
    nextSendAt: iso(folder.nextSendAt),
    skippedSendAt: iso(activeSkip(folder)),
    issueNote: folder.issueNote,
    lastSentAt: iso(folder.lastSentAt),
    sortOrder: folder.sortOrder,
    itemCount: stats.itemCount,
    totalSize: stats.totalSize,
    maxSize: folderSizeLimit(recipients),
    nextIssue: {
      recipients: reach.listed,
      willGetIt: reach.reaching,
      missing: reach.missing,
      line: nextIssueLine(reach),
    },
  };
}

function itemView(item: ListedItem | Item, folderId: number): z.input<typeof ItemViewSchema> {
  return {
    id: item.id,
    folderId,
    type: item.type,
    title: item.title,
    urls: item.urls,
    note: item.note,
    addComment: item.addComment,
    commentText: item.commentText,
    askQuestion: item.askQuestion,
    questionText: item.questionText,
    responseExpectation: item.responseExpectation,
    files: item.fileNames.map((name, index) => ({
      index,
      name,
      size: item.fileSizes[index] ?? 0,
    })),
    needsNote: needsNote(item),
    video:
      item.type === "video"
        ? {
            status: item.videoStatus ?? "preparing",
            progress: item.videoStatus === "ready" ? 100 : item.videoProgress,
            error: item.videoStatus === "failed" ? item.videoError : null,
          }
        : null,
    preview: item.previewStatus
      ? {
          status: item.previewStatus,
          title: item.previewTitle,
          description: item.previewDescription,
          siteName: item.previewSiteName,
        }
      : null,
  };
}

const userId = (context: ApiContext) => context.principal.user.id;

/**
 * One call's answers (`limit` of them, and whether more match), each with
 * its writer's name on the folder's list as it is now, else their address.
 */
function answerList(
  ownerId: number,
  options: { folderId?: number; after?: number; limit: number },
): z.input<typeof AnswerListSchema> {
  const rows = listAnswers(ownerId, {
    folderId: options.folderId,
    afterId: options.after,
    limit: options.limit + 1,
  });
  const names = new Map(
    listFolders(ownerId).flatMap((folder) =>
      recipientsOf(folder)
        .filter((recipient) => recipient.name.trim())
        .map((recipient) => [
          `${folder.id} ${recipient.email.toLowerCase()}`,
          recipient.name.trim(),
        ]),
    ),
  );
  return {
    answers: rows.slice(0, options.limit).map(
      (row): z.input<typeof AnswerViewSchema> => ({
        id: row.id,
        folderId: row.folderId,
        issueId: row.issueId,
        itemId: row.itemId,
        recipient: row.email,
        name: names.get(`${row.folderId} ${row.email.toLowerCase()}`) ?? row.email,
        kind: row.kind,
        text: row.kind === "note" ? (row.body ?? "") : null,
        createdAt: row.createdAt.toISOString(),
      }),
    ),
    hasMore: rows.length > options.limit,
  };
}
const folderOf = (context: ApiContext) => getFolder(userId(context), context.params.folderId!);

/** The folder form's refusal of suppressed mailboxes, for the same body sent as JSON. */
function refuseSuppressedAddresses(
  recipients: { name: string; email: string }[],
  listed: string[],
) {
  const refuse = suppressedAddressRefusal(listed);
  const fields = Object.fromEntries(
    recipients.flatMap((recipient, index) => {
      const refusal = refuse(recipient.email, recipient.name);
      return refusal ? [[`recipients.${index}.email`, [refusal]]] : [];
    }),
  );
  if (Object.keys(fields).length > 0) throw validationError(fields);
}
const itemOf = (context: ApiContext) => getItem(userId(context), context.params.itemId!);

function folderWithItems(folder: Folder, page: number, limit: number) {
  const { items, pagination } = listItems(folder.id, page, limit);
  return {
    folder: folderView(folder),
    items: items.map((item) => itemView(item, folder.id)),
    pagination,
  };
}

/** A form schema applied to a JSON body, with the form's messages on failure. */
function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/** The API's uploads: the pages' upload helper, authorised by the bearer token instead of a CSRF token. */
function uploadFor(context: ApiContext, kind: UploadKindChoice) {
  return { kind, userId: userId(context), csrf: false };
}

const folderPath = "/folders/{folderId}";
const itemPath = "/items/{itemId}";

export const API_OPERATIONS: ApiOperation[] = [
  {
    method: "GET",
    path: "/token",
    summary: "The token's scope and its user",
    scope: "read",
    response: TokenInfoSchema,
    handle: ({ principal }) => ({
      scope: principal.scope,
      user: { email: principal.user.email, firstName: principal.user.firstName },
    }),
  },
  {
    method: "GET",
    path: "/usage",
    summary: "Folders and storage used, and the plan's limits",
    scope: "read",
    response: UsageSchema,
    handle: (context) => {
      const usage = getUsage(userId(context));
      return {
        folderCount: usage.folderCount,
        totalStorageBytes: usage.totalStorageBytes,
        subscriptionTier: usage.tier,
        limits: {
          maxFolders: finiteOrNull(usage.limits.maxFolders),
          maxStorageBytes: finiteOrNull(usage.limits.maxStorageBytes),
        },
      };
    },
  },
  {
    method: "GET",
    path: "/folders",
    summary: "The user's folders, in their order",
    scope: "read",
    response: z.array(FolderViewSchema),
    handle: (context) => {
      const stats = folderStats(userId(context));
      const folders = listFolders(userId(context));
      const reach = nextIssueReach(folders);
      return folders.map((folder) =>
        folderView(folder, stats.get(folder.id) ?? EMPTY_FOLDER, reach.get(folder.id)),
      );
    },
  },
  {
    method: "POST",
    path: "/folders",
    summary: "Create a folder",
    description:
      "A `personalSignoff` given is saved without the form's `signoffEnabled` box; send `signoffEnabled: false` to leave it off. Each recipient needs a name and an address. Left out: `frequency` weekly, `dayOfWeek` 1 (Monday), `dayOfMonth` 1 (monthly folders only), `answerEmails` daily.",
    scope: "write",
    body: FolderUpdateSchema.transform((body) => seedFolderBody(body)).pipe(FolderBodySchema),
    response: FolderViewSchema,
    status: 201,
    handle: (context, { body }) => {
      refuseSuppressedAddresses(body.recipients, []);
      const folder = createFolder(userId(context), body);
      sendWelcomesSoon();
      return folderView(folder);
    },
  },
  {
    method: "GET",
    path: folderPath,
    summary: "A folder with one page of its items",
    scope: "read",
    query: PageQuerySchema,
    response: FolderWithItemsSchema,
    handle: (context, { query }) => folderWithItems(folderOf(context), query.page, query.limit),
  },
  {
    method: "PUT",
    path: folderPath,
    summary: "Update a folder's details (the body of create; a field left out keeps its value)",
    description:
      "A partial body is welcome: the sign-off, like every other field, is kept unless the body changes it (`null` clears it).",
    scope: "write",
    body: FolderUpdateSchema,
    response: FolderViewSchema,
    handle: (context, { body }) => {
      const folder = folderOf(context);
      const recipients = recipientsOf(folder);
      const input = parseWith(FolderBodySchema, seedFolderBody(body, { ...folder, recipients }));
      refuseSuppressedAddresses(
        input.recipients,
        recipients.map((recipient) => recipient.email),
      );
      const updated = updateFolder(userId(context), folder.id, input);
      sendWelcomesSoon();
      return folderView(updated);
    },
  },
  {
    method: "DELETE",
    path: folderPath,
    summary: "Delete a folder with its items and files",
    scope: "write",
    response: OkSchema,
    handle: async (context) => {
      await deleteFolder(userId(context), context.params.folderId!);
      return { ok: true };
    },
  },
  {
    method: "PATCH",
    path: `${folderPath}/pause`,
    summary: "Pause or resume delivery (toggles when `paused` is left out)",
    scope: "write",
    body: PauseSchema,
    response: FolderViewSchema,
    handle: (context, { body }) => {
      const folder = folderOf(context);
      if (body.paused === folder.isPaused) return folderView(folder);
      return folderView(togglePause(userId(context), folder.id));
    },
  },
  {
    method: "PATCH",
    path: `${folderPath}/skip`,
    summary: "Skip the next issue, or bring the skipped one back",
    description:
      "The delivery moves to the schedule's next one, at 00:01 in your time zone; an issue already due is being sent and cannot be skipped (409).",
    scope: "write",
    body: SkipSchema,
    response: FolderViewSchema,
    handle: (context, { body }) => {
      const folder = folderOf(context);
      if (body.skipped === (activeSkip(folder) !== null)) return folderView(folder);
      const change = body.skipped ? skipNextIssue : undoSkip;
      return folderView(change(userId(context), folder.id).folder);
    },
  },
  {
    method: "PUT",
    path: `${folderPath}/note`,
    summary: "Set the few words at the top of the next issue (empty or null removes them)",
    scope: "write",
    body: IssueNoteSchema,
    response: FolderViewSchema,
    handle: (context, { body }) =>
      folderView(setIssueNote(userId(context), folderOf(context).id, body.issueNote)),
  },
  {
    method: "PUT",
    path: `${folderPath}/reorder`,
    summary: "Move a folder up or down the list",
    scope: "write",
    body: DirectionSchema,
    response: OkSchema,
    handle: (context, { body }) => {
      moveFolder(userId(context), context.params.folderId!, body.direction);
      return { ok: true };
    },
  },
  {
    method: "POST",
    path: `${folderPath}/send`,
    summary: "Send Now: the folder's items go to its recipients",
    scope: "write",
    response: SendResultSchema,
    handle: async (context) => {
      // sendNow() holds the same limits as the page's Send Now: a token must not flood inboxes either.
      const result = await sendNow(userId(context), context.params.folderId!);
      if (!result) throw notFound();
      return result;
    },
  },
  {
    method: "GET",
    path: `${folderPath}/preview`,
    summary: "The next newsletter as it would be sent now (nulls when the folder is empty)",
    scope: "read",
    response: PreviewSchema,
    handle: (context) => {
      const preview = renderPreview(folderOf(context), context.principal.user);
      return preview
        ? { subject: preview.rendered.subject, html: preview.html, text: preview.text }
        : { subject: null, html: null, text: null };
    },
  },
  {
    method: "GET",
    path: `${folderPath}/recipients`,
    summary: "The folder's recipients and whether each still receives it",
    scope: "read",
    response: z.array(RecipientStateSchema),
    handle: (context) =>
      recipientStates(folderOf(context).id).map((state) => ({
        email: state.email,
        status: state.status,
        resubscribeRequestedAt: iso(state.resubscribeRequestedAt),
      })),
  },
  {
    method: "POST",
    path: `${folderPath}/request-resubscription`,
    summary: "E-mail an unsubscribed recipient a link to re-subscribe (once per 30 days)",
    scope: "write",
    body: ResubscriptionSchema,
    response: OkSchema,
    handle: async (context, { body }) => {
      await requestResubscription(userId(context), context.params.folderId!, body.email);
      return { ok: true };
    },
  },
  {
    method: "POST",
    path: `${folderPath}/items`,
    summary:
      "Add a link or a musing (the body of the Add Link / Add Musing form). A link may leave its title (the page's own is fetched) and its comment or question for later: it then needs a note before it is sent",
    scope: "write",
    body: NewTextItemSchema,
    response: ItemViewSchema,
    status: 201,
    handle: async (context, { body }) => {
      const folderId = context.params.folderId!;
      // A link is a quick save (docs/decisions/0134-quick-saves-wait-for-a-note.md).
      const input =
        body.type === "link" ? parseWith(QuickLinkSchema, body) : parseWith(MusingSchema, body);
      const { item } = await saveItem(userId(context), { folderId }, input);
      return itemView(item, folderId);
    },
  },
  {
    method: "POST",
    path: `${folderPath}/upload`,
    summary:
      "Upload photos, files or a video as one item (multipart). Without `type` the first file's bytes decide it. Without a title the first file's name is used; without a comment or question the item needs a note before it is sent",
    description: `Photos: JPEG, PNG, GIF, WebP or HEIC (told by their bytes, not their name or type), re-encoded as JPEG (PNG when transparent) at most 1600 px, without metadata such as GPS; 10 MB a file. Files: PDF or Word (.pdf, .doc, .docx); 10 MB a file. A video: one MP4, MOV or WebM clip up to ${LIMITS.video.maxUploadBytes / (1024 * 1024)} MB, ${LIMITS.video.maxSecondsFree} seconds (${LIMITS.video.maxSecondsPremium / 60} minutes with Premium); it is prepared in the background (\`video.status\` preparing, then ready or failed with its reason) and sent once ready. A file of another kind than \`type\` is refused (415).`,
    scope: "write",
    query: UploadQuerySchema,
    multipart: UploadFieldsSchema,
    response: ItemViewSchema,
    status: 201,
    handle: async (context, { query }) => {
      const folder = folderOf(context);
      const upload = uploadFor(context, query.type ?? "by-content");
      const item = await withUpload(context.request, upload, async ({ formData, stored, kind }) => {
        const details = parseFormFields(formData, QuickUploadDetailsSchema);
        if (stored.length === 0) {
          throw validationError({ files: [`Please select at least one ${query.type ?? "file"}`] });
        }
        const title =
          details.title ||
          titleForUpload(kind, stored, {
            date: new Date(),
            timeZone: context.principal.user.timeZone,
          });
        const input = { ...details, title, type: kind };
        return (await saveItem(userId(context), { folderId: folder.id }, input, stored)).item;
      });
      return itemView(item, folder.id);
    },
  },
  {
    method: "PATCH",
    path: itemPath,
    summary: "Edit an item: any fields of its edit form; a field left out keeps its value",
    description:
      "A link takes `title`, `urls` and the comment and question fields; a musing `title` and `note`; a photo, file or video item `title` and the comment and question fields. The whole item is then checked as its edit form checks it.",
    scope: "write",
    body: ItemUpdateSchema,
    response: ItemViewSchema,
    handle: async (context, { body }) => {
      const { item } = itemOf(context);
      const input = parseWith(schemaFor(item.type), withItemValues(body, item));
      const saved = await saveItem(userId(context), { itemId: item.id }, input);
      return itemView(saved.item, item.folderId);
    },
  },
  {
    method: "POST",
    path: `${itemPath}/add-files`,
    summary: "Add photos or files to an existing photo or file item (multipart)",
    description:
      "Only `files` is needed: a text field left out keeps the item's value, one sent replaces it.",
    scope: "write",
    multipart: AddFilesFieldsSchema,
    response: ItemViewSchema,
    handle: async (context) => {
      const { item } = itemOf(context);
      if (item.type !== "photo" && item.type !== "file") throw notFound();
      const upload = uploadFor(context, item.type);
      return withUpload(context.request, upload, async ({ formData, stored }) => {
        const input = parseFormFields(withItemDetails(formData, item), schemaFor(item.type));
        const saved = await saveItem(userId(context), { itemId: item.id }, input, stored);
        return itemView(saved.item, item.folderId);
      });
    },
  },
  {
    method: "DELETE",
    path: itemPath,
    summary: "Delete an item and its files",
    scope: "write",
    response: OkSchema,
    handle: async (context) => {
      await deleteItem(userId(context), context.params.itemId!);
      return { ok: true };
    },
  },
  {
    method: "DELETE",
    path: `${itemPath}/files/{index}`,
    summary: "Remove one file of an item, by position (not the last one)",
    scope: "write",
    response: OkSchema,
    handle: async (context) => {
      await removeItemFile(userId(context), context.params.itemId!, context.params.index!);
      return { ok: true };
    },
  },
  {
    method: "POST",
    path: `${itemPath}/reorder`,
    summary: "Move an item up or down its folder",
    scope: "write",
    body: DirectionSchema,
    response: OkSchema,
    handle: (context, { body }) => {
      moveItem(userId(context), context.params.itemId!, body.direction);
      return { ok: true };
    },
  },
  {
    method: "GET",
    path: "/answers",
    summary: "Recipients' hearts and notes on the items they were sent",
    description:
      "The newest first; with `after` (an answer id) the ones that came after it, oldest first, so repeating the call with the last id returned walks forward without missing any. Another user's folder is not found.",
    scope: "read",
    query: AnswersQuerySchema,
    response: AnswerListSchema,
    handle: (context, { query }) => {
      // Another sender's folder answers 404, as everywhere in the API, rather than an empty list.
      if (query.folderId !== undefined) getFolder(userId(context), query.folderId);
      return answerList(userId(context), query);
    },
  },
  {
    method: "GET",
    path: "/referrals/stats",
    summary: "The user's referral code and what friends who joined added",
    scope: "read",
    response: ReferralStatsSchema,
    handle: (context) => {
      const id = userId(context);
      const stats = referralStats(id, getUsage(id));
      return {
        ...stats,
        referralLink: stats.referralCode ? referralLink(stats.referralCode) : null,
      };
    },
  },
];

export const COMPILED_API_OPERATIONS = compileOperations(API_OPERATIONS);
