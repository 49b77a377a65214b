import { asc, eq } from "drizzle-orm";
import type { ZipDeflate } from "fflate";
import { contentItems, folders, itemAnswers } from "#db/schema";
import { db } from "~/platform/db.server";
import { consumeRateLimit, type RateLimit } from "~/platform/rate-limit.server";
import { storage } from "~/platform/storage.server";

/**
 * "Download my data" (docs/decisions/0155-download-my-data.md): one ZIP of
 * every folder (with its recipients), every item of the account and the
 * hearts and notes its recipients sent back
 * (docs/decisions/0159-recipients-answer-back.md) as JSON, plus the files
 * themselves, streamed as it is written so memory stays flat whatever the
 * account holds.
 */

/** Each export reads every stored file of the account: a few a day is plenty. */
export const EXPORTS_PER_USER: RateLimit = {
  name: "data_export",
  points: 3,
  durationSeconds: 60 * 60,
};

export function takeExportAttempt(userId: number) {
  return consumeRateLimit(EXPORTS_PER_USER, String(userId));
}

/** A stored file's name made safe as one path segment inside the ZIP. */
export function zipSegment(name: string) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const cleaned = name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, "_").replace(/^\.+/, "_");
  return cleaned.slice(0, 120) || "file";
}

type ExportFile = { path: string; key: string };

/** The account's folders and items as the ZIP's JSON, and where each stored file goes in it. */
export function collectExport(userId: number) {
  const ownFolders = db
    .select()
    .from(folders)
    .where(eq(folders.userId, userId))
    .orderBy(asc(folders.sortOrder), asc(folders.id))
    .all();
  const rows = db
    .select({ item: contentItems })
    .from(contentItems)
    .innerJoin(folders, eq(folders.id, contentItems.folderId))
    .where(eq(folders.userId, userId))
    .orderBy(asc(contentItems.folderId), asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
  const files: ExportFile[] = [];
  const items = rows.map(({ item }) => ({
    id: item.id,
    folderId: item.folderId,
    type: item.type,
    title: item.title,
    urls: item.urls,
    comment: item.addComment ? item.commentText : null,
    question: item.askQuestion ? item.questionText : null,
    note: item.note,
    responseExpectation: item.responseExpectation,
    link: item.previewTitle
      ? {
          title: item.previewTitle,
          description: item.previewDescription,
          siteName: item.previewSiteName,
        }
      : null,
    files: item.filePaths.map((key, index) => {
      const path = `files/${item.id}/${index + 1}-${zipSegment(item.fileNames[index] ?? "file")}`;
      files.push({ path, key });
      return {
        name: item.fileNames[index] ?? null,
        size: item.fileSizes[index] ?? null,
        mimeType: item.mimeTypes[index] ?? null,
        path,
      };
    }),
    createdAt: item.createdAt,
    sentAt: item.sentAt,
  }));
  const foldersJson = ownFolders.map((folder) => ({
    id: folder.id,
    name: folder.name,
    recipients: folder.recipients,
    personalSignoff: folder.personalSignoff,
    frequency: folder.frequency,
    dayOfWeek: folder.dayOfWeek,
    dayOfMonth: folder.dayOfMonth,
    timeOfDay: folder.timeOfDay,
    ccSender: folder.ccSender,
    answerEmails: folder.answerEmails,
    isPaused: folder.isPaused,
    lastSentAt: folder.lastSentAt,
    nextSendAt: folder.nextSendAt,
    createdAt: folder.createdAt,
  }));
  return { folders: foldersJson, items, answers: answersOf(userId), files };
}

/**
 * The answers the account's recipients sent, oldest first. Read here, not
 * through the answers domain, which sits above accounts (tests/repository/layering.test.ts).
 */
function answersOf(userId: number) {
  return db
    .select()
    .from(itemAnswers)
    .where(eq(itemAnswers.userId, userId))
    .orderBy(asc(itemAnswers.id))
    .all()
    .map((answer) => ({
      id: answer.id,
      folderId: answer.folderId,
      issueId: answer.ledgerId,
      itemId: answer.itemId,
      recipient: answer.email,
      kind: answer.kind,
      text: answer.body,
      createdAt: answer.createdAt,
    }));
}

const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

/**
 * The ZIP's bytes, chunk by chunk: the JSON first, then each file read from
 * storage as the reader asks for more. Files are stored as they are (photos
 * and documents are compressed already); the JSON is deflated.
 */
export async function* exportZip(userId: number): AsyncGenerator<Uint8Array> {
  const { Zip, ZipDeflate, ZipPassThrough } = await import("fflate");
  const content = collectExport(userId);
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else ready.push(chunk);
  });
  const drain = () => {
    if (failure) throw failure;
    return ready.splice(0);
  };
  const add = (entry: ZipDeflate, data: Uint8Array) => {
    zip.add(entry);
    entry.push(data, true);
  };
  add(new ZipDeflate("folders.json"), json(content.folders));
  add(new ZipDeflate("items.json"), json(content.items));
  add(new ZipDeflate("answers.json"), json(content.answers));
  yield* drain();
  for (const file of content.files) {
    // A file gone missing from storage is left out; items.json still names it.
    const source = await storage.get(file.key);
    if (!source) continue;
    const entry = new ZipPassThrough(file.path);
    zip.add(entry);
    for await (const chunk of source) {
      entry.push(chunk as Uint8Array);
      yield* drain();
    }
    entry.push(new Uint8Array(0), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}
