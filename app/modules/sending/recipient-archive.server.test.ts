import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { sendLedger } from "#db/schema";
import { createSentIssue, createSentLedger } from "#db/sent-issue-factories";
import { unsubscribe } from "~/modules/recipients/opt-outs.server";
import {
  archiveCode,
  issueLinkCode,
  readArchiveCode,
} from "~/modules/recipients/recipient-links.server";
import { db } from "~/platform/db.server";
import { ARCHIVE_PAGE_SIZE, recipientArchive } from "./recipient-archive.server";

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
