import crypto from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { and, eq } from "drizzle-orm";
import type { EmailAddress, Headers, HeaderValue } from "mailparser";
import { createElement } from "react";
import { folders, inboundMessages, users } from "#db/schema";
import { renderEmail } from "#emails/render.server";
import { SavedByEmail, savedByEmailSubject } from "#emails/saved-by-email";
import { deleteStoredFiles, storedKeys } from "~/modules/files/stored-files.server";
import { type StoredUpload, UPLOAD_FIELD, type UploadKind } from "~/modules/files/upload-kinds";
import type { UploadDetailsInput } from "~/modules/items/item-validation";
import { createTextItem, createUploadItem, type Item } from "~/modules/items/items.server";
import { needsNote } from "~/modules/items/needs-note";
import { requestVideoPass } from "~/modules/items/video-preparation-queue.server";
import { LIMITS } from "~/modules/plans/limits";
import { createUploadHandler } from "~/modules/uploads/uploads.server";
import { db, writeTransaction } from "~/platform/db.server";
import { canonicalEmail } from "~/platform/email-address";
import { env } from "~/platform/env.server";
import { RuleError } from "~/platform/errors.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import {
  BUDGET_WAIT_MS,
  MemoryBudgetSpentError,
  memoryBudget,
} from "~/platform/memory-budget.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { singleton } from "~/platform/singleton.server";
import { type SpooledFile, SpoolFullError } from "~/platform/spool.server";
import { WorkLane } from "~/platform/work-lane.server";
import { planSave, type SavePlan } from "./forwarded-message.server";
import { folderForInboxAddress } from "./inbox-addresses.server";
import {
  type ParsedMessage,
  parseMessage,
  parseReservationBytes,
  removeAttachments,
  type SpooledAttachment,
} from "./message-parse.server";
import { measureMessage, readHeaders } from "./message-shape.server";
import { checkSender, type Transport } from "./sender-check.server";

/**
 * A message sent to a folder's address becomes items in that folder
 * (docs/decisions/0158-save-by-email.md). In order: the address names a folder;
 * the From is the folder owner's own verified address; mailauth finds it
 * authentic; the folder's address is not flooded; the message was not saved
 * before. Mail failing any of these is dropped without an answer (an answer
 * would go to whoever was impersonated) and counted in the security
 * dashboard. Then everything is saved in one transaction, or nothing is, and
 * the owner gets one answer. Only the header section is read before the From
 * is known to be the owner's; the whole parse waits for room in the memory
 * budget (docs/decisions/0178-smtp-mail-spooled-and-parsed-under-the-memory-budget.md).
 */
export type IncomingMail = {
  /** The whole message: the bytes a webhook was posted, or the file the SMTP receiver spooled. */
  raw: Buffer | SpooledFile;
  /** Envelope recipients (RCPT TO, or the provider's); the message's own To, Cc and Delivered-To are tried too. */
  recipients: string[];
  /** How it arrived over SMTP; null from a provider's webhook. */
  transport: Transport | null;
  /** The webhook's request, or one standing for the SMTP session: for the security records. */
  request: Request;
};

export type SaveOutcome =
  | { outcome: "saved"; folderId: number; itemCount: number }
  | { outcome: "refused"; folderId: number; problem: string }
  | { outcome: "duplicate"; folderId: number }
  | { outcome: "dropped"; reason: string };

export const SAVES_PER_FOLDER = {
  name: "save-by-email:folder",
  points: LIMITS.saveByEmail.savesPerFolderPerHour,
  durationSeconds: 60 * 60,
};

/** The message's bytes, as many times as they are read: the file's, or the posted ones. */
type MessageBytes = { size: number; open(): Readable };

function messageBytes(raw: Buffer | SpooledFile): MessageBytes {
  return Buffer.isBuffer(raw) ? { size: raw.length, open: () => Readable.from([raw]) } : raw;
}

/** The addresses of a field mailparser reads as addresses (From, To, Delivered-To…). */
function addressList(value: HeaderValue | undefined): EmailAddress[] {
  return value && typeof value === "object" && "value" in value && Array.isArray(value.value)
    ? value.value
    : [];
}

/** The addresses in a header field: parsed by mailparser, or a field it leaves as text. */
function addressesIn(value: HeaderValue | undefined): string[] {
  if (typeof value === "string") return [value];
  return addressList(value).map((entry) => entry.address ?? "");
}

function recipientCandidates(mail: IncomingMail, headers: Headers) {
  const named = ["to", "cc", "delivered-to", "x-original-to"].flatMap((name) =>
    addressesIn(headers.get(name)),
  );
  return [...mail.recipients, ...named].filter(Boolean);
}

async function sha256Of(message: MessageBytes) {
  const hash = crypto.createHash("sha256");
  await pipeline(message.open(), hash);
  return hash.digest("hex");
}

function drop(mail: IncomingMail, reason: string, folder?: { folderId: number; userId: number }) {
  recordSecurityEvent(mail.request, {
    eventType: "inbound_mail_refused",
    severity: folder ? "medium" : "low",
    userId: folder?.userId ?? null,
    details: {
      reason,
      folderId: folder?.folderId ?? null,
      via: mail.transport ? "smtp" : "webhook",
    },
  });
  return { outcome: "dropped" as const, reason };
}

/** Each attachment through the upload pipeline (type by content, photos re-encoded, metadata dropped). */
async function storeGroup(
  kind: UploadKind,
  group: SpooledAttachment[],
  ctx: { request: Request; userId: number; stored: StoredUpload[] },
) {
  const before = ctx.stored.length;
  const handle = createUploadHandler(kind, { ...ctx, maxFiles: group.length });
  for (const attachment of group) {
    await handle({
      name: UPLOAD_FIELD,
      filename: attachment.filename ?? `${kind}`,
      contentType: attachment.contentType,
      data: attachment.file.open(),
    });
  }
  return ctx.stored.slice(before);
}

/** The reasons' columns as stored: the schemas' output types say string where an unused text is null. */
type Reason = Omit<UploadDetailsInput, "title" | "commentText" | "questionText"> & {
  commentText: string;
  questionText: string;
};

/** An item as the answer names it: what it is, its title, and whether it waits for a note. */
export type SavedItem = Pick<Item, "type" | "title"> & { files: number; waitsForNote: boolean };

/** Stores the files, then writes every item and the message's record in one transaction. */
async function saveItems(
  plan: SavePlan<SpooledAttachment>,
  owner: { userId: number; folderId: number },
  messageKey: string,
  request: Request,
): Promise<SavedItem[]> {
  const ctx = { request, userId: owner.userId, stored: [] as StoredUpload[] };
  try {
    const uploads: (StoredUpload[] | null)[] = [];
    for (const item of plan.items) {
      uploads.push(
        item.type === "photo" || item.type === "file" || item.type === "video"
          ? await storeGroup(item.type, item.attachments, ctx)
          : null,
      );
    }
    // The person's words are every item's comment (docs/decisions/0197-one-message-one-thought.md).
    const reason = {
      addComment: Boolean(plan.note),
      askQuestion: false,
      commentText: plan.note || null,
      questionText: null,
      responseExpectation: "na",
    } as unknown as Reason;
    const saved = writeTransaction((tx) => {
      const saved = plan.items.map((item, index) => {
        const created =
          item.type === "link"
            ? createTextItem(owner.userId, owner.folderId, {
                type: "link",
                title: item.title,
                urls: item.urls,
                ...reason,
              })
            : item.type === "musing"
              ? createTextItem(owner.userId, owner.folderId, {
                  type: "musing",
                  title: item.title,
                  note: item.note,
                })
              : createUploadItem(
                  owner.userId,
                  owner.folderId,
                  item.type,
                  { title: item.title, ...reason },
                  uploads[index]!,
                );
        return {
          type: created.type,
          title: created.title,
          files: created.fileNames.length,
          waitsForNote: needsNote(created),
        };
      });
      tx.insert(inboundMessages)
        .values({ folderId: owner.folderId, messageKey, itemCount: saved.length })
        .run();
      return saved;
    });
    // Prepared in the background, as a clip from the Add Video sheet is.
    if (saved.some((item) => item.type === "video")) requestVideoPass();
    return saved;
  } catch (error) {
    await deleteStoredFiles(storedKeys(ctx.stored));
    throw error;
  }
}

async function answer(
  mail: IncomingMail,
  owner: { userId: number; folderId: number },
  result: { items: SavedItem[]; problem: string | null; skipped: string[] },
) {
  const user = db.select().from(users).where(eq(users.id, owner.userId)).get();
  const folder = db.select().from(folders).where(eq(folders.id, owner.folderId)).get();
  if (!user || !folder) return;
  // Past the account's limit the message stays saved; only the answer is skipped.
  if (await refuseMailBurst("save-by-email-answer", mail.request, `user:${user.id}`)) return;
  const { html, text } = renderEmail(
    createElement(SavedByEmail, {
      firstName: user.firstName,
      folderName: folder.name,
      items: result.items,
      problem: result.problem,
      skipped: result.skipped,
      folderUrl: `${env.APP_URL}/folders/${folder.id}`,
    }),
  );
  await sendEmail({
    to: user.email,
    subject: savedByEmailSubject(folder.name, result.items.length, result.problem),
    html,
    text,
  });
}

export async function receiveMail(mail: IncomingMail): Promise<SaveOutcome> {
  const leave = await mailReading.enter({ waitMs: MAIL_READING_WAIT_MS });
  // Told as when the budget has no room: the sending server or the provider tries again later.
  if (!leave) throw new MemoryBudgetSpentError("save-by-email");
  try {
    return await readAndSave(mail);
  } finally {
    leave();
  }
}

/**
 * Messages are read one at a time: their three passes over up to 25 MB are
 * the heaviest work a request can start, and the machine has one CPU
 * (docs/memory-budget.md, "The SMTP door").
 */
const mailReading = singleton("mail-reading", () => new WorkLane(1));
const MAIL_READING_WAIT_MS = 10_000;

async function readAndSave(mail: IncomingMail): Promise<SaveOutcome> {
  const message = messageBytes(mail.raw);
  if (message.size > LIMITS.saveByEmail.maxMessageBytes) return drop(mail, "message too large");
  // Counted as the bytes stream past, before mailparser reads even the header section.
  const shape = await measureMessage(message.open());
  if (typeof shape === "string") return drop(mail, shape);
  const headers = await readHeaders(message.open());
  if (typeof headers === "string") return drop(mail, headers);
  const owner = recipientCandidates(mail, headers)
    .map((address) => folderForInboxAddress(address))
    .find((found) => found !== null);
  if (!owner) return drop(mail, "no folder has this address");

  const fromList = addressList(headers.get("from"));
  const from = fromList.length === 1 ? canonicalEmail(fromList[0]?.address ?? "") : null;
  const user = db.select().from(users).where(eq(users.id, owner.userId)).get();
  if (!from || !user?.emailVerified || canonicalEmail(user.email) !== from) {
    return drop(mail, "not from the folder owner's verified address", owner);
  }

  const bytes = parseReservationBytes(shape);
  // No wait would make room for it: the budget as a whole is smaller.
  if (bytes > memoryBudget.capacityBytes) return drop(mail, "too large to read here", owner);
  const reservation = await memoryBudget.reserve(bytes, { waitMs: BUDGET_WAIT_MS });
  if (!reservation) throw new MemoryBudgetSpentError("save-by-email");
  let saved: { outcome: SaveOutcome; skipped: string[]; items: SavedItem[] };
  let parsed: ParsedMessage | null = null;
  try {
    const verdict = await checkSender(message.open(), from, mail.transport);
    if (!verdict.authentic) return drop(mail, `not authentic: ${verdict.reason}`, owner);
    try {
      parsed = await parseMessage(message.open());
    } catch (error) {
      // No room for the attachments on disk now: the sender is told to try later.
      if (error instanceof SpoolFullError) throw error;
      return drop(mail, "malformed message", owner);
    }
    if (!(await consumeRateLimit(SAVES_PER_FOLDER, String(owner.folderId))).allowed) {
      return drop(mail, "too many messages to this address", owner);
    }
    const messageId = headers.get("message-id");
    const messageKey =
      typeof messageId === "string"
        ? crypto.createHash("sha256").update(messageId).digest("hex")
        : await sha256Of(message);
    const seen = db
      .select({ id: inboundMessages.id })
      .from(inboundMessages)
      .where(
        and(
          eq(inboundMessages.folderId, owner.folderId),
          eq(inboundMessages.messageKey, messageKey),
        ),
      )
      .all();
    if (seen.length > 0) return { outcome: "duplicate", folderId: owner.folderId };
    saved = await save(mail, owner, messageKey, planSave(parsed));
  } finally {
    if (parsed) await removeAttachments(parsed);
    reservation.release();
  }
  await answer(mail, owner, {
    items: saved.items,
    problem: saved.outcome.outcome === "refused" ? saved.outcome.problem : null,
    skipped: saved.skipped,
  });
  return saved.outcome;
}

/** The plan's items saved, or the app's reason they were not. */
async function save(
  mail: IncomingMail,
  owner: { userId: number; folderId: number },
  messageKey: string,
  plan: SavePlan<SpooledAttachment>,
): Promise<{ outcome: SaveOutcome; skipped: string[]; items: SavedItem[] }> {
  try {
    const items =
      plan.items.length > 0 ? await saveItems(plan, owner, messageKey, mail.request) : [];
    const outcome: SaveOutcome =
      items.length > 0
        ? { outcome: "saved", folderId: owner.folderId, itemCount: items.length }
        : {
            outcome: "refused",
            folderId: owner.folderId,
            problem: "It had no text, links, photos, videos or files.",
          };
    return { outcome, skipped: plan.skipped, items };
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    return {
      outcome: { outcome: "refused", folderId: owner.folderId, problem: error.message },
      skipped: plan.skipped,
      items: [],
    };
  }
}
