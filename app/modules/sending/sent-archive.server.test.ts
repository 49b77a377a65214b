import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import {
  contentItems,
  emailDeliveries,
  folders,
  sendLedger,
  sendLedgerRecipients,
} from "#db/schema";
import { deleteFolder } from "~/modules/folders/folders.server";
import { ARCHIVE_FILE_RETENTION_DAYS, SENT_ISSUES_PER_PAGE } from "~/modules/plans/limits";
import { db } from "~/platform/db.server";
import { storage } from "~/platform/storage.server";
import {
  archiveFolderChoices,
  deleteSentIssue,
  getSentIssue,
  listArchive,
  listSentIssues,
} from "./sent-archive.server";

let counter = 0;

async function store(text: string) {
  const { key } = await storage.put(
    (async function* () {
      yield Buffer.from(text);
    })(),
  );
  return key;
}

/** A folder with one sent issue: a photo item and a link, three recipients with different outcomes. */
async function seedIssue(sentAt = new Date()) {
  counter += 1;
  const user = createUser(db, { email: `archive${counter}@example.com` });
  const folder = createFolder(db, user.id, { name: "Family", recipients: [] });
  const photo = await store(`photo ${counter}`);
  const items = db
    .insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "photo" as const,
        title: "Beach",
        filePaths: [photo],
        thumbnailPaths: [""],
        fileNames: ["beach.jpg"],
        fileSizes: [7],
        mimeTypes: ["image/jpeg"],
        sentAt,
      },
      {
        folderId: folder.id,
        type: "link" as const,
        title: "Story",
        urls: ["https://a.test/"],
        sentAt,
      },
    ])
    .returning()
    .all();
  const ledger = addLedger(
    folder.id,
    items.map((item) => item.id),
    sentAt,
  );
  db.insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: "mum@example.com", status: "sent" as const },
      { ledgerId: ledger.id, email: "dad@example.com", status: "bounced" as const },
      { ledgerId: ledger.id, email: "gran@example.com", status: "skipped" as const },
      { ledgerId: ledger.id, email: user.email, kind: "cc" as const, status: "sent" as const },
    ])
    .run();
  return { user, folder, items, ledger, photo };
}

function addLedger(folderId: number, itemIds: number[], completedAt: Date) {
  return db
    .insert(sendLedger)
    .values({
      folderId,
      occurrenceKey: `k-${completedAt.getTime()}-${Math.random()}`,
      trigger: "send_now",
      status: "sent",
      itemIds,
      completedAt,
    })
    .returning()
    .get();
}

test("lists a folder's sent issues with each recipient's outcome, for its sender only", async () => {
  const { user, folder, ledger } = await seedIssue();
  const page = listSentIssues(user.id, folder.id, 1)!;
  expect(page.total).toBe(1);
  expect(page.issues[0]).toMatchObject({
    id: ledger.id,
    itemCount: 2,
    outcomes: { delivered: 1, bounced: 1, left: 1, failed: 0, pending: 0 },
    engagement: null,
  });
  const other = createUser(db, { email: `other${counter}@example.com` });
  expect(listSentIssues(other.id, folder.id, 1)).toBeNull();
  expect(getSentIssue(other.id, folder.id, ledger.id)).toBeNull();

  const issue = getSentIssue(user.id, folder.id, ledger.id)!;
  expect(issue.items.map((item) => item.title)).toEqual(["Beach", "Story"]);
  expect(issue.recipients.map((recipient) => [recipient.email, recipient.outcome])).toEqual([
    ["mum@example.com", "delivered"],
    ["dad@example.com", "bounced"],
    ["gran@example.com", "left"],
  ]);
});

test("shows opens and clicks only for a tracked send", async () => {
  const { user, folder, ledger } = await seedIssue();
  db.update(sendLedger).set({ tracked: true }).where(eq(sendLedger.id, ledger.id)).run();
  db.insert(emailDeliveries)
    .values({
      folderId: folder.id,
      ledgerId: ledger.id,
      recipientEmail: "mum@example.com",
      openCount: 3,
      clickCount: 2,
    })
    .run();
  expect(listSentIssues(user.id, folder.id, 1)!.issues[0]!.engagement).toEqual({
    opened: 1,
    clicks: 2,
  });
  expect(getSentIssue(user.id, folder.id, ledger.id)!.recipients[0]).toMatchObject({
    opens: 3,
    clicks: 2,
  });
});

test("pages the archive newest first", async () => {
  const { user, folder } = await seedIssue(new Date(Date.UTC(2026, 0, 1)));
  for (let index = 0; index < SENT_ISSUES_PER_PAGE; index += 1) {
    addLedger(folder.id, [], new Date(Date.UTC(2026, 1, 1 + index)));
  }
  const first = listSentIssues(user.id, folder.id, 1)!;
  expect(first.pageCount).toBe(2);
  expect(first.issues).toHaveLength(SENT_ISSUES_PER_PAGE);
  expect(first.issues[0]!.sentAt.getUTCDate()).toBe(SENT_ISSUES_PER_PAGE);
  const second = listSentIssues(user.id, folder.id, 99)!;
  expect(second.page).toBe(2);
  expect(second.issues.map((issue) => issue.sentAt.getUTCMonth())).toEqual([0]);
});

test("deleting an issue removes its items and files, and only its sender can", async () => {
  const { user, folder, ledger, photo } = await seedIssue();
  const other = createUser(db, { email: `thief${counter}@example.com` });
  expect(await deleteSentIssue(other.id, folder.id, ledger.id)).toBe(false);
  expect(await storage.stat(photo)).not.toBeNull();

  expect(await deleteSentIssue(user.id, folder.id, ledger.id)).toBe(true);
  expect(await storage.stat(photo)).toBeNull();
  expect(listSentIssues(user.id, folder.id, 1)!.total).toBe(0);
  expect(getSentIssue(user.id, folder.id, ledger.id)).toBeNull();
  expect(db.select().from(contentItems).where(eq(contentItems.folderId, folder.id)).all()).toEqual(
    [],
  );
  // The ledger stays (marked deleted): the occurrence can never be sent again.
  expect(
    db.select().from(sendLedger).where(eq(sendLedger.id, ledger.id)).get()?.deletedAt,
  ).toBeInstanceOf(Date);
});

test("deleting the folder deletes its archive and the archived files", async () => {
  const { user, folder, ledger, photo } = await seedIssue();
  await deleteFolder(user.id, folder.id);
  expect(await storage.stat(photo)).toBeNull();
  expect(db.select().from(sendLedger).where(eq(sendLedger.id, ledger.id)).get()).toBeUndefined();
});

test("the archive lists every folder's issues, newest first, and only the user's", async () => {
  const { user, ledger } = await seedIssue(new Date(Date.UTC(2026, 0, 1)));
  const holiday = createFolder(db, user.id, {
    name: "Holiday",
    recipients: [{ name: "Aunt May", email: "May@Example.com" }],
  });
  const link = db
    .insert(contentItems)
    .values({
      folderId: holiday.id,
      type: "link",
      title: "Ferry times",
      urls: ["https://ferry.test/"],
      previewStatus: "ready",
      previewImageKey: "preview-key",
      sentAt: new Date(),
    })
    .returning()
    .get();
  const later = addLedger(holiday.id, [link.id], new Date(Date.UTC(2026, 1, 1)));
  db.insert(sendLedgerRecipients)
    .values({ ledgerId: later.id, email: "may@example.com", status: "sent" })
    .run();
  // Someone else's issue never shows, not even asked for by its folder.
  const stranger = await seedIssue();

  const all = listArchive(user.id, { folderId: null, page: 1 });
  expect(all.total).toBe(2);
  expect(all.issues.map((issue) => [issue.id, issue.folder.name])).toEqual([
    [later.id, "Holiday"],
    [ledger.id, "Family"],
  ]);
  expect(all.issues[0]).toMatchObject({
    recipients: [{ name: "Aunt May", email: "may@example.com" }],
    outcomes: { delivered: 1 },
    picture: { key: "preview-key", alt: "Ferry times" },
  });
  // The photo was sent long ago: past the retention, the archive names no picture.
  expect(all.issues[1]).toMatchObject({
    recipients: [
      { name: null, email: "mum@example.com" },
      { name: null, email: "dad@example.com" },
      { name: null, email: "gran@example.com" },
    ],
    picture: null,
  });

  expect(
    listArchive(user.id, { folderId: holiday.id, page: 1 }).issues.map((issue) => issue.id),
  ).toEqual([later.id]);
  expect(listArchive(user.id, { folderId: stranger.folder.id, page: 1 }).total).toBe(0);
  expect(archiveFolderChoices(user.id).map((choice) => choice.name)).toEqual(["Family", "Holiday"]);
});

test("an issue's first picture is its first photo's thumbnail while it is stored", async () => {
  const { user, folder, ledger, items, photo } = await seedIssue();
  expect(listArchive(user.id, { folderId: null, page: 1 }).issues[0]!.picture).toEqual({
    key: photo,
    alt: "beach.jpg",
  });
  db.update(contentItems)
    .set({ thumbnailPaths: ["thumb-key"] })
    .where(eq(contentItems.id, items[0]!.id))
    .run();
  expect(listSentIssues(user.id, folder.id, 1)!.issues[0]!.picture?.key).toBe("thumb-key");
  const expired = new Date(Date.now() - (ARCHIVE_FILE_RETENTION_DAYS + 1) * 86_400_000);
  db.update(contentItems)
    .set({ sentAt: expired })
    .where(eq(contentItems.folderId, folder.id))
    .run();
  expect(listArchive(user.id, { folderId: folder.id, page: 1 }).issues[0]).toMatchObject({
    id: ledger.id,
    picture: null,
  });
});

test("an issue names its recipients from the folder's list, the address when not on it", async () => {
  const { user, folder, ledger } = await seedIssue();
  db.update(folders)
    .set({ recipients: [{ name: "Mum", email: "MUM@example.com" }] })
    .where(eq(folders.id, folder.id))
    .run();
  expect(
    getSentIssue(user.id, folder.id, ledger.id)!.recipients.map((recipient) => [
      recipient.name,
      recipient.email,
    ]),
  ).toEqual([
    ["Mum", "mum@example.com"],
    [null, "dad@example.com"],
    [null, "gran@example.com"],
  ]);
});
