import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Attachment, ParsedMail } from "mailparser";
import { createElement } from "react";
import { folders, inboundMessages, users } from "#db/schema";
import { renderEmail } from "#emails/render.server";
import { SavedByEmail, savedByEmailSubject } from "#emails/saved-by-email";
import { LIMITS } from "~/modules/billing/limits";
import { deleteStoredFiles, storedKeys } from "~/modules/files/stored-files.server";
import { type StoredUpload, UPLOAD_FIELD, type UploadKind } from "~/modules/files/upload-kinds";
import type { UploadDetailsInput } from "~/modules/items/item-validation";
import { createTextItem, createUploadItem } from "~/modules/items/items.server";
import { createUploadHandler } from "~/modules/uploads/uploads.server";
import { db, writeTransaction } from "~/platform/db.server";
import { canonicalEmail } from "~/platform/email-address";
import { env } from "~/platform/env.server";
import { RuleError } from "~/platform/errors.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { headerSectionBytes, planSave, type SavePlan } from "./forwarded-message.server";
import { folderForInboxAddress } from "./inbox-addresses.server";
import { checkSender, type Transport } from "./sender-check.server";

/**
 * A message sent to a folder's address becomes items in that folder
 * (docs/decisions/0158-save-by-email.md). In order: the address names a folder;
 * the From is the folder owner's own verified address; mailauth finds it
 * authentic; the folder's address is not flooded; the message was not saved
 * before. Mail failing any of these is dropped without an answer (an answer
 * would go to whoever was impersonated) and counted in the security
 * dashboard. Then everything is saved in one transaction, or nothing is, and
 * the owner gets one answer.
 */
export type IncomingMail = {
  raw: Buffer;
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

/** Content-Type headers, counted before parsing: each is a part mailparser would build. */
export function countParts(raw: Buffer) {
  return raw.toString("latin1").match(/^content-type\s*:/gim)?.length ?? 0;
}

function recipientCandidates(mail: IncomingMail, message: ParsedMail) {
  const listed = [message.to, message.cc]
    .flatMap((field) => (field ? (Array.isArray(field) ? field : [field]) : []))
    .flatMap((group) => group.value.map((entry) => entry.address ?? ""));
  const delivered = ["delivered-to", "x-original-to"].flatMap((name) => {
    const value = message.headers.get(name);
    return typeof value === "string" ? [value] : [];
  });
  return [...mail.recipients, ...listed, ...delivered].filter(Boolean);
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

function asStream(content: Buffer): AsyncIterable<Uint8Array> {
  return (async function* () {
    yield new Uint8Array(content);
  })();
}

/** Each attachment through the upload pipeline (type by content, photos re-encoded, metadata dropped). */
async function storeGroup(
  kind: UploadKind,
  group: Attachment[],
  ctx: { request: Request; userId: number; stored: StoredUpload[] },
) {
  const before = ctx.stored.length;
  const handle = createUploadHandler(kind, { ...ctx, maxFiles: group.length });
  for (const attachment of group) {
    await handle({
      name: UPLOAD_FIELD,
      filename: attachment.filename ?? `${kind}`,
      contentType: attachment.contentType,
      data: asStream(attachment.content),
    });
  }
  return ctx.stored.slice(before);
}

/** The reasons' columns as stored: the schemas' output types say string where an unused text is null. */
type Reason = Omit<UploadDetailsInput, "title" | "commentText" | "questionText"> & {
  commentText: string;
  questionText: string;
};

function numbered(title: string, index: number, count: number) {
  return count > 1
    ? `${title} (${index + 1} of ${count})`.slice(-LIMITS.item.titleMaxLength)
    : title;
}

/** Stores the files, then writes every item and the message's record in one transaction. */
async function saveItems(
  plan: SavePlan,
  owner: { userId: number; folderId: number },
  messageKey: string,
  request: Request,
) {
  const ctx = { request, userId: owner.userId, stored: [] as StoredUpload[] };
  try {
    const photoGroups: StoredUpload[][] = [];
    for (const group of plan.photos) photoGroups.push(await storeGroup("photo", group, ctx));
    const fileGroups: StoredUpload[][] = [];
    for (const group of plan.files) fileGroups.push(await storeGroup("file", group, ctx));
    // The person's words go with the first item, as its comment (or as the note of a musing).
    const reason = (first: boolean) =>
      ({
        addComment: first && Boolean(plan.text),
        askQuestion: false,
        commentText: first && plan.text ? plan.text : null,
        questionText: null,
        responseExpectation: "na",
      }) as unknown as Reason;
    return writeTransaction((tx) => {
      let count = 0;
      const first = () => count === 0;
      if (plan.links.length > 0) {
        createTextItem(owner.userId, owner.folderId, {
          type: "link",
          title: plan.title,
          urls: plan.links,
          ...reason(first()),
        });
        count += 1;
      }
      if (plan.moreLinks.length > 0) {
        createTextItem(owner.userId, owner.folderId, {
          type: "musing",
          title: `More links: ${plan.title}`.slice(0, LIMITS.item.titleMaxLength),
          note: plan.moreLinks.join("\n").slice(0, LIMITS.item.textMaxLength),
        });
        count += 1;
      }
      for (const [kind, groups] of [
        ["photo", photoGroups],
        ["file", fileGroups],
      ] as const) {
        groups.forEach((stored, index) => {
          createUploadItem(
            owner.userId,
            owner.folderId,
            kind,
            { title: numbered(plan.title, index, groups.length), ...reason(first()) },
            stored,
          );
          count += 1;
        });
      }
      if (count === 0 && plan.text) {
        createTextItem(owner.userId, owner.folderId, {
          type: "musing",
          title: plan.title,
          note: plan.text,
        });
        count += 1;
      }
      tx.insert(inboundMessages)
        .values({ folderId: owner.folderId, messageKey, itemCount: count })
        .run();
      return count;
    });
  } catch (error) {
    await deleteStoredFiles(storedKeys(ctx.stored));
    throw error;
  }
}

async function answer(
  mail: IncomingMail,
  owner: { userId: number; folderId: number },
  result: { savedCount: number; problem: string | null; skipped: string[] },
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
      savedCount: result.savedCount,
      problem: result.problem,
      skipped: result.skipped,
      folderUrl: `${env.APP_URL}/folders/${folder.id}`,
    }),
  );
  await sendEmail({
    to: user.email,
    subject: savedByEmailSubject(folder.name, result.savedCount, result.problem),
    html,
    text,
  });
}

export async function receiveMail(mail: IncomingMail): Promise<SaveOutcome> {
  if (mail.raw.length > LIMITS.saveByEmail.maxMessageBytes) return drop(mail, "message too large");
  if (countParts(mail.raw) > LIMITS.saveByEmail.maxParts) return drop(mail, "too many parts");
  if (headerSectionBytes(mail.raw) > LIMITS.saveByEmail.maxHeaderBytes) {
    return drop(mail, "header section too large");
  }
  // Loaded on the first message, not at every start (docs/decisions/0083-one-build.md).
  const { simpleParser } = await import("mailparser");
  let message: ParsedMail;
  try {
    message = await simpleParser(mail.raw, { skipImageLinks: true, skipTextLinks: true });
  } catch {
    return drop(mail, "malformed message");
  }
  const owner = recipientCandidates(mail, message)
    .map((address) => folderForInboxAddress(address))
    .find((found) => found !== null);
  if (!owner) return drop(mail, "no folder has this address");

  const fromList = message.from?.value ?? [];
  const from = fromList.length === 1 ? canonicalEmail(fromList[0]?.address ?? "") : null;
  const user = db.select().from(users).where(eq(users.id, owner.userId)).get();
  if (!from || !user?.emailVerified || canonicalEmail(user.email) !== from) {
    return drop(mail, "not from the folder owner's verified address", owner);
  }
  const verdict = await checkSender(mail.raw, from, mail.transport);
  if (!verdict.authentic) return drop(mail, `not authentic: ${verdict.reason}`, owner);
  if (!(await consumeRateLimit(SAVES_PER_FOLDER, String(owner.folderId))).allowed) {
    return drop(mail, "too many messages to this address", owner);
  }

  const messageKey = crypto
    .createHash("sha256")
    .update(message.messageId ?? mail.raw)
    .digest("hex");
  const seen = db
    .select({ id: inboundMessages.id })
    .from(inboundMessages)
    .where(
      and(eq(inboundMessages.folderId, owner.folderId), eq(inboundMessages.messageKey, messageKey)),
    )
    .all();
  if (seen.length > 0) return { outcome: "duplicate", folderId: owner.folderId };

  const plan = planSave(message);
  let outcome: SaveOutcome;
  try {
    const itemCount =
      plan.links.length + plan.photos.length + plan.files.length > 0 || plan.text
        ? await saveItems(plan, owner, messageKey, mail.request)
        : 0;
    outcome =
      itemCount > 0
        ? { outcome: "saved", folderId: owner.folderId, itemCount }
        : {
            outcome: "refused",
            folderId: owner.folderId,
            problem: "It had no text, links, photos or files.",
          };
  } catch (error) {
    if (!(error instanceof RuleError)) throw error;
    outcome = { outcome: "refused", folderId: owner.folderId, problem: error.message };
  }
  await answer(mail, owner, {
    savedCount: outcome.outcome === "saved" ? outcome.itemCount : 0,
    problem: outcome.outcome === "refused" ? outcome.problem : null,
    skipped: plan.skipped,
  });
  return outcome;
}
