import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder as createFolderRow, createUser } from "#db/factories";
import { emailUnsubscribes, folderRecipientStates, folders } from "#db/schema";
import { db } from "~/platform/db.server";
import { canonicalizeStoredAddresses } from "./addresses.server";
import { activeRecipients, hasOptedOut } from "./opt-outs.server";

function createFolder(userId: number, emails: string[], name = "Family") {
  return createFolderRow(db, userId, {
    name,
    recipients: emails.map((email, index) => ({ name: `Person ${index + 1}`, email })),
  });
}

function folderRow(id: number) {
  return db.select().from(folders).where(eq(folders.id, id)).get()!;
}

function activeEmails(folderId: number) {
  return activeRecipients(folderRow(folderId)).map((recipient) => recipient.email);
}

describe("addresses stored before canonical forms", () => {
  test("non-ASCII domains are rewritten at start, and the opt-out wins a merge", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["Anna@BÜCHER.example"]);
    db.insert(folderRecipientStates)
      .values([
        { folderId: folder.id, email: "anna@bücher.example", status: "unsubscribed" },
        { folderId: folder.id, email: "anna@xn--bcher-kva.example", status: "active" },
      ])
      .run();
    db.insert(emailUnsubscribes).values({ email: "zoë@straße.example" }).run();

    canonicalizeStoredAddresses();

    expect(folderRow(folder.id).recipients).toEqual([
      { name: "Person 1", email: "anna@xn--bcher-kva.example" },
    ]);
    expect(
      db
        .select({ email: folderRecipientStates.email, status: folderRecipientStates.status })
        .from(folderRecipientStates)
        .where(eq(folderRecipientStates.folderId, folder.id))
        .all(),
    ).toEqual([{ email: "anna@xn--bcher-kva.example", status: "unsubscribed" }]);
    expect(
      db
        .select()
        .from(emailUnsubscribes)
        .where(eq(emailUnsubscribes.email, "zoë@xn--strae-oqa.example"))
        .get(),
    ).toBeDefined();
    expect(activeRecipients(folderRow(folder.id))).toEqual([]);
  });
});

describe("rows written without a mailbox", () => {
  test("are keyed at start, and the opt-out wins where two spellings of one mailbox meet", () => {
    const sender = createUser(db);
    const folder = createFolder(sender.id, ["ij@gmail.com"]);
    db.insert(folderRecipientStates)
      .values([
        { folderId: folder.id, email: "ij@gmail.com", status: "active" },
        { folderId: folder.id, email: "i.j+x@googlemail.com", status: "unsubscribed" },
      ])
      .run();
    db.insert(emailUnsubscribes).values({ email: "kl+x@example.com" }).run();

    canonicalizeStoredAddresses();

    expect(
      db
        .select({ email: folderRecipientStates.email, mailbox: folderRecipientStates.mailbox })
        .from(folderRecipientStates)
        .where(eq(folderRecipientStates.folderId, folder.id))
        .all(),
    ).toEqual([{ email: "i.j+x@googlemail.com", mailbox: "ij@gmail.com" }]);
    expect(activeEmails(folder.id)).toEqual([]);
    expect(hasOptedOut(folder.id, "kl@example.com")).toBe(true);
  });
});
