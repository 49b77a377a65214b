import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import {
  contentItems,
  emailDeliveries,
  folders,
  sendLedger,
  sendLedgerRecipients,
} from "#db/schema";
import type { SendRecord } from "#db/send-journal";
import { db } from "~/platform/db.server";
import { replaySends } from "./restored-sends.server";

let counter = 0;

/** A due folder with two items, as a backup holds it, and the journal of its send since. */
function sendAfterTheBackup() {
  counter += 1;
  const user = createUser(db);
  const folder = createFolder(db, user.id, {
    recipients: [{ name: "Mum", email: "mum@example.com" }],
    nextSendAt: new Date("2026-11-30T00:01:00.000Z"),
    issueNote: "Happy birthday",
  });
  const items = [createItem(db, folder.id), createItem(db, folder.id)];
  const token = `${String(counter).padStart(2, "0")}${"ab".repeat(15)}`;
  const ledgerId = 9000 + counter * 10;
  const records: SendRecord[] = [
    {
      type: "opened",
      at: "2026-11-30T00:01:05.000Z",
      token,
      ledgerId,
      folderId: folder.id,
      occurrenceKey: `2026-11-30#${counter}`,
      trigger: "schedule",
      // The third item was saved after the backup: the restored database has no such item.
      itemIds: [items[0]!.id, items[1]!.id, 8_000_000 + counter],
      tracked: false,
      issueNote: "Happy birthday",
      openedAt: "2026-11-30T00:01:00.000Z",
      recipients: [
        { id: ledgerId * 10, email: "mum@example.com", kind: "recipient" },
        { id: ledgerId * 10 + 1, email: user.email, kind: "cc" },
      ],
    },
    {
      type: "sent",
      at: "2026-11-30T00:01:06.000Z",
      token,
      email: "mum@example.com",
      kind: "recipient",
      messageId: `<send-${token}-1@example.com>`,
    },
  ];
  const finished: SendRecord = {
    type: "finished",
    at: "2026-11-30T00:01:08.000Z",
    token,
    status: "sent",
    recipients: [
      { email: "mum@example.com", kind: "recipient", status: "sent" },
      { email: user.email, kind: "cc", status: "failed" },
    ],
  };
  return { folder, items, token, ledgerId, records, finished };
}

const ledgerOf = (token: string) =>
  db.select().from(sendLedger).where(eq(sendLedger.messageToken, token)).get();
const copiesOf = (ledgerId: number) =>
  db
    .select({
      id: sendLedgerRecipients.id,
      email: sendLedgerRecipients.email,
      status: sendLedgerRecipients.status,
      messageId: sendLedgerRecipients.messageId,
    })
    .from(sendLedgerRecipients)
    .where(eq(sendLedgerRecipients.ledgerId, ledgerId))
    .orderBy(sendLedgerRecipients.id)
    .all();

test("a finished send comes back whole: its ids, its token, its copies, the folder emptied", () => {
  const { folder, items, token, ledgerId, records, finished } = sendAfterTheBackup();

  expect(replaySends([...records, finished])).toEqual({
    sends: 1,
    copies: 1,
    finished: 1,
    skipped: 0,
  });

  expect(ledgerOf(token)).toMatchObject({
    id: ledgerId,
    status: "sent",
    itemIds: [items[0]!.id, items[1]!.id],
    issueNote: "Happy birthday",
  });
  expect(copiesOf(ledgerId)).toEqual([
    {
      id: ledgerId * 10,
      email: "mum@example.com",
      status: "sent",
      messageId: `<send-${token}-1@example.com>`,
    },
    { id: ledgerId * 10 + 1, email: expect.any(String), status: "failed", messageId: null },
  ]);
  const left = db.select().from(contentItems).where(eq(contentItems.folderId, folder.id)).all();
  expect(left.map((item) => item.sentAt?.toISOString())).toEqual([
    "2026-11-30T00:01:08.000Z",
    "2026-11-30T00:01:08.000Z",
  ]);
  const after = db.select().from(folders).where(eq(folders.id, folder.id)).get()!;
  expect(after.lastSentAt?.toISOString()).toBe("2026-11-30T00:01:08.000Z");
  expect(after.nextSendAt!.getTime()).toBeGreaterThan(Date.parse("2026-11-30T00:01:00.000Z"));
  expect(after.issueNote).toBeNull();
  const deliveries = db
    .select()
    .from(emailDeliveries)
    .where(eq(emailDeliveries.ledgerId, ledgerId))
    .all();
  expect(deliveries.map((delivery) => delivery.recipientEmail)).toEqual(["mum@example.com"]);

  // Replayed again (a second restore, or records the backup already had): nothing changes.
  expect(replaySends([...records, finished])).toEqual({
    sends: 0,
    copies: 0,
    finished: 0,
    skipped: 0,
  });
  expect(copiesOf(ledgerId)).toHaveLength(2);
});

test("a send still under way comes back under way: the copy that went is marked, the other waits", () => {
  const { token, ledgerId, records } = sendAfterTheBackup();

  replaySends(records);

  expect(ledgerOf(token)).toMatchObject({ status: "sending", claimedBy: null });
  expect(copiesOf(ledgerId).map((copy) => copy.status)).toEqual(["sent", "pending"]);
});

test("a send of a folder the backup lacks is passed over; ids already taken are given anew", () => {
  const first = sendAfterTheBackup();
  replaySends(first.records);
  const second = sendAfterTheBackup();
  const clashing = second.records.map((record) =>
    record.type === "opened"
      ? {
          ...record,
          ledgerId: first.ledgerId,
          recipients: record.recipients.map((recipient, index) => ({
            ...recipient,
            id: first.ledgerId * 10 + index,
          })),
        }
      : record,
  );
  const strayToken = "cd".repeat(16);
  const stray: SendRecord[] = [
    {
      ...(first.records[0] as Extract<SendRecord, { type: "opened" }>),
      token: strayToken,
      folderId: 999_999,
    },
    { ...(first.records[1] as Extract<SendRecord, { type: "sent" }>), token: strayToken },
  ];

  expect(replaySends([...clashing, ...stray])).toEqual({
    sends: 1,
    copies: 1,
    finished: 0,
    skipped: 1,
  });

  const moved = ledgerOf(second.token)!;
  expect(moved.id).not.toBe(first.ledgerId);
  expect(copiesOf(moved.id).map((copy) => copy.status)).toEqual(["sent", "pending"]);
  expect(copiesOf(first.ledgerId).map((copy) => copy.status)).toEqual(["sent", "pending"]);
  expect(ledgerOf(strayToken)).toBeUndefined();
});
