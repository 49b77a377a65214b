import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { sendLedger } from "#db/schema";
import { db } from "~/platform/db.server";
import {
  SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY,
  SEND_NOW_SENDS_PER_ACCOUNT_PER_HOUR,
  SendNowLimitError,
} from "./send-now-limits.server";
import { SendRuleError, sendNow } from "./sending.server";

let counter = 0;
const mailbox = (name: string) => `${name}-${++counter}-${Date.now()}@example.com`;

function folderFor(userId: number, ...emails: string[]) {
  return createFolder(db, userId, {
    recipients: emails.map((email, index) => ({ name: `Recipient ${index + 1}`, email })),
  });
}

async function sendWithAnItem(userId: number, folderId: number) {
  createItem(db, folderId);
  return sendNow(userId, folderId);
}

describe("Send Now's limits, for the recipients' sake", () => {
  test("a mailbox gets three Send Now issues a day from one sender, whichever folder they come from", async () => {
    expect(SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY).toBe(3);
    const sender = createUser(db);
    const mum = mailbox("mum");
    const family = folderFor(sender.id, mum);
    const garden = folderFor(sender.id, mum);
    await sendWithAnItem(sender.id, family.id);
    await sendWithAnItem(sender.id, garden.id);
    await sendWithAnItem(sender.id, family.id);

    createItem(db, garden.id);
    const refusal = sendNow(sender.id, garden.id);
    await expect(refusal).rejects.toThrow(SendNowLimitError);
    await expect(refusal).rejects.toThrow(
      `Send Now reaches a recipient at most 3 times a day, and ${mum} has had 3 today. Please try again in 24 hours, or let the folder go on its schedule.`,
    );

    // Another mailbox of the same sender is not held back by Mum's count.
    const friends = folderFor(sender.id, mailbox("ann"));
    await expect(sendWithAnItem(sender.id, friends.id)).resolves.toMatchObject({ messages: 1 });
  });

  test("a folder with one recipient at the limit is refused as a whole, naming how many", async () => {
    const sender = createUser(db);
    const [dad, sam] = [mailbox("dad"), mailbox("sam")];
    const both = folderFor(sender.id, dad, sam);
    for (let send = 0; send < SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY; send++) {
      await sendWithAnItem(sender.id, both.id);
    }
    createItem(db, both.id);
    await expect(sendNow(sender.id, both.id)).rejects.toThrow(
      "and 2 of this folder's recipients have had 3 today.",
    );
  });

  test("a refused Send Now never counts", async () => {
    const sender = createUser(db);
    const folder = folderFor(sender.id, mailbox("gran"));
    for (let attempt = 0; attempt < 5; attempt++) {
      // Nothing in the folder: refused, and not a send.
      await expect(sendNow(sender.id, folder.id)).rejects.toThrow(SendRuleError);
    }
    for (let send = 0; send < SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY; send++) {
      await expect(sendWithAnItem(sender.id, folder.id)).resolves.toMatchObject({ messages: 1 });
    }
  });

  test("another sender's issues to the same mailbox do not count against this one", async () => {
    const aunt = mailbox("aunt");
    const other = createUser(db);
    const otherFolder = folderFor(other.id, aunt);
    for (let send = 0; send < SEND_NOW_ISSUES_PER_MAILBOX_PER_DAY; send++) {
      await sendWithAnItem(other.id, otherFolder.id);
    }
    const sender = createUser(db);
    const folder = folderFor(sender.id, aunt);
    await expect(sendWithAnItem(sender.id, folder.id)).resolves.toMatchObject({ messages: 1 });
  });

  test("an account opens at most twenty Send Nows an hour, to anyone", async () => {
    const sender = createUser(db);
    const folder = folderFor(sender.id, mailbox("first"));
    // Sends of the last hour, to other mailboxes, as the ledger holds them.
    for (let send = 0; send < SEND_NOW_SENDS_PER_ACCOUNT_PER_HOUR; send++) {
      db.insert(sendLedger)
        .values({
          folderId: folder.id,
          occurrenceKey: `send-now:earlier-${send}`,
          trigger: "send_now",
          status: "sent",
          createdAt: new Date(Date.now() - 30 * 60 * 1000 + send),
        })
        .run();
    }
    createItem(db, folder.id);
    const refusal = sendNow(sender.id, folder.id);
    await expect(refusal).rejects.toThrow(
      "You have used Send Now 20 times in the last hour. Please try again in 30 minutes.",
    );
    await refusal.catch((error: SendNowLimitError) =>
      expect(error.retryAfterSeconds).toBeGreaterThan(29 * 60),
    );
  });
});
