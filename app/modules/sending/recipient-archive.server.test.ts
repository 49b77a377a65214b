import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { contentItems, sendLedger } from "#db/schema";
import { createSentIssue, createSentLedger } from "#db/sent-issue-factories";
import { unsubscribe } from "~/modules/recipients/opt-outs.server";
import {
  archiveCode,
  issueLinkCode,
  readArchiveCode,
} from "~/modules/recipients/recipient-links.server";
import { db } from "~/platform/db.server";
import { ARCHIVE_PAGE_SIZE, recipientArchive } from "./recipient-archive.server";
import { webVersionFile } from "./web-version.server";

const DAY = 86_400_000;

function familyWithIssues(mum: string, count: number) {
  const sender = createUser(db, { timeZone: "Europe/London" });
  const folder = createFolder(db, sender.id, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: `dad-${mum}` },
    ],
  });
  const issues = Array.from({ length: count }, (_, index) =>
    createSentIssue(db, folder.id, {
      titles: [`Week ${index + 1}`],
      emails: [mum, `dad-${mum}`],
      sentAt: new Date(Date.UTC(2026, 9, 4) + index * 7 * DAY),
    }),
  );
  return { sender, folder, issues };
}

describe("recipientArchive", () => {
  test("lists every issue this address was sent, newest first, each opening its own web version, with its note", () => {
    const { folder, issues } = familyWithIssues("arch-mum@example.com", 3);
    db.update(sendLedger)
      .set({ issueNote: "Big week: Sam started school." })
      .where(eq(sendLedger.id, issues[1]!.ledger.id))
      .run();
    // Not hers: another folder's issue, and an issue sent to Dad only.
    const other = createFolder(db, folder.userId, { name: "Garden" });
    createSentIssue(db, other.id, { titles: ["Roses"], emails: ["arch-mum@example.com"] });
    createSentIssue(db, folder.id, { titles: ["Dad only"], emails: ["dad-arch-mum@example.com"] });

    const archive = recipientArchive(archiveCode(folder.id, "arch-mum@example.com"));
    expect(archive.state).toBe("open");
    if (archive.state !== "open") return;
    expect(archive.folderName).toBe("Family news");
    expect(archive.issues.map((issue) => issue.sentOn)).toEqual([
      "Sun 18 Oct 2026",
      "Sun 11 Oct 2026",
      "Sun 4 Oct 2026",
    ]);
    expect(archive.issues.map((issue) => issue.href)).toEqual(
      [2, 1, 0].map(
        (index) => `/v/${issueLinkCode("web", issues[index]!.ledger.id, "arch-mum@example.com")}`,
      ),
    );
    expect(archive.issues.map((issue) => issue.issueNote)).toEqual([
      null,
      "Big week: Sam started school.",
      null,
    ]);
    expect(archive.hasOlder).toBe(false);
  });

  test("leaves out issues the sender deleted and copies that were not delivered", () => {
    const { folder, issues } = familyWithIssues("arch-gone@example.com", 2);
    db.update(sendLedger)
      .set({ deletedAt: new Date() })
      .where(eq(sendLedger.id, issues[0]!.ledger.id))
      .run();
    createSentLedger(db, folder.id, {
      itemIds: [],
      copies: [{ email: "arch-gone@example.com", status: "skipped" }],
    });
    const archive = recipientArchive(archiveCode(folder.id, "arch-gone@example.com"));
    expect(archive.state === "open" && archive.issues).toHaveLength(1);
  });

  test("after unsubscribing shows no issue, only the way back", () => {
    const { folder } = familyWithIssues("arch-left@example.com", 3);
    unsubscribe({ folderId: folder.id, email: "arch-left@example.com" });
    const archive = recipientArchive(archiveCode(folder.id, "arch-left@example.com"));
    expect(archive).toMatchObject({ state: "left", email: "arch-left@example.com" });
    expect(archive).not.toHaveProperty("issues");
  });

  test("is unknown for a forged code, another folder's code, or an address never sent an issue", () => {
    const { folder } = familyWithIssues("arch-real@example.com", 1);
    const code = archiveCode(folder.id, "arch-real@example.com");
    expect(readArchiveCode(code)).toEqual({ folderId: folder.id, email: "arch-real@example.com" });
    expect(recipientArchive(`${code.slice(0, -2)}xx`)).toEqual({ state: "unknown" });
    expect(recipientArchive(archiveCode(folder.id, "stranger@example.com"))).toEqual({
      state: "unknown",
    });
    const [packed] = code.split(".");
    const web = issueLinkCode("web", folder.id, "arch-real@example.com");
    expect(recipientArchive(`${packed}.${web.split(".")[1]}`)).toEqual({ state: "unknown" });
  });

  test("shows fifty issues a page, the older ones on the next", () => {
    const { folder } = familyWithIssues("arch-many@example.com", ARCHIVE_PAGE_SIZE + 2);
    const code = archiveCode(folder.id, "arch-many@example.com");
    const first = recipientArchive(code, 1);
    const second = recipientArchive(code, 2);
    expect(first.state === "open" && [first.issues.length, first.hasOlder]).toEqual([
      ARCHIVE_PAGE_SIZE,
      true,
    ]);
    expect(second.state === "open" && [second.issues.length, second.hasOlder]).toEqual([2, false]);
  });
});

describe("what each issue of the archive shows", () => {
  /** An issue of a note, two photos and a link, as the e-mail showed them: the photos second and third. */
  function issueWithPhotos(mum: string, sentAt = new Date()) {
    const sender = createUser(db);
    const folder = createFolder(db, sender.id, { recipients: [{ name: "Mum", email: mum }] });
    const photo = (title: string, thumbnail: string, sortOrder: number) => ({
      folderId: folder.id,
      type: "photo" as const,
      title,
      filePaths: [`${title}-photo`],
      thumbnailPaths: [thumbnail],
      fileNames: [`${title}.jpg`],
      mimeTypes: ["image/jpeg"],
      sentAt,
      sortOrder,
    });
    const items = db
      .insert(contentItems)
      .values([
        { folderId: folder.id, type: "musing", title: "A few lines", sentAt, sortOrder: 0 },
        photo("Our garden", "garden-thumb", 1),
        photo("The beach", "", 2),
        { folderId: folder.id, type: "link", title: "Tide tables", sentAt, sortOrder: 3 },
      ])
      .returning()
      .all();
    const { ledger } = createSentLedger(db, folder.id, {
      itemIds: items.map((item) => item.id),
      copies: [{ email: mum }],
      sentAt,
    });
    return { folder, items, ledger };
  }

  test("its items' titles in the e-mail's order, and its first photo's thumbnail behind the issue's own link", () => {
    const mum = "thumb-mum@example.com";
    const { folder, items, ledger } = issueWithPhotos(mum);
    const archive = recipientArchive(archiveCode(folder.id, mum));
    if (archive.state !== "open") throw new Error(archive.state);
    const [issue] = archive.issues;
    expect(issue!.titles).toEqual(["A few lines", "Our garden", "The beach", "Tide tables"]);
    const code = issueLinkCode("web", ledger.id, mum);
    expect(issue!.picture).toEqual({
      url: `/v-files/${code}/${items[1]!.id}/thumb`,
      alt: "Our garden",
    });
    // Served by the web version's check: the thumbnail, or the photo itself when it has none.
    expect(webVersionFile(code, items[1]!.id, "thumb")).toEqual({
      key: "garden-thumb",
      name: "thumbnail.jpg",
      mimeType: "image/jpeg",
    });
    expect(webVersionFile(code, items[2]!.id, "thumb")).toMatchObject({ key: "The beach-photo" });
    expect(webVersionFile(code, items[0]!.id, "thumb")).toBeNull();
    expect(webVersionFile(`${code}x`, items[1]!.id, "thumb")).toBeNull();
    // Gone with the issue's link when Mum leaves.
    unsubscribe({ folderId: folder.id, email: mum });
    expect(webVersionFile(code, items[1]!.id, "thumb")).toBeNull();
  });

  test("no picture for an issue without photos, or once its files are past the archive's keeping", () => {
    const mum = "nopic-mum@example.com";
    const { folder } = familyWithIssues(mum, 1);
    const plain = recipientArchive(archiveCode(folder.id, mum));
    expect(plain.state === "open" && plain.issues[0]).toMatchObject({
      titles: ["Week 1"],
      picture: null,
    });

    const old = "oldpic-mum@example.com";
    const { folder: oldFolder } = issueWithPhotos(old, new Date(Date.now() - 400 * DAY));
    const archive = recipientArchive(archiveCode(oldFolder.id, old));
    expect(archive.state === "open" && archive.issues[0]).toMatchObject({
      titles: ["A few lines", "Our garden", "The beach", "Tide tables"],
      picture: null,
    });
  });
});
