import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { deliveryReports, mailboxSuppressions, sendLedger, sendLedgerRecipients } from "#db/schema";
import { folderSchema } from "~/modules/folders/folder-validation";
import { db } from "~/platform/db.server";
import { mailboxKey } from "~/platform/email-address";
import {
  issueReportNotices,
  recipientSuppressionNotices,
  suppressedAddressRefusal,
  whoIs,
} from "./suppression-notices.server";

const NOW = new Date("2026-11-20T12:00:00Z");
const DAY = 24 * 60 * 60 * 1000;
const day = (date: Date) => date.toISOString().slice(0, 10);
let counter = 0;

function suppress(
  email: string,
  reason: "hard_bounce" | "soft_bounce" | "complaint",
  suppressedUntil: Date | null = null,
) {
  db.insert(mailboxSuppressions)
    .values({ mailbox: mailboxKey(email)!, email, reason, suppressedUntil })
    .run();
}

function report(
  senderUserId: number,
  email: string,
  kind: "hard_bounce" | "soft_bounce" | "complaint",
  ledgerRecipientId: number | null = null,
) {
  counter += 1;
  db.insert(deliveryReports)
    .values({
      source: "test",
      sourceEventId: `notice-${counter}`,
      senderUserId,
      ledgerRecipientId,
      email,
      mailbox: mailboxKey(email)!,
      kind,
      occurredAt: NOW,
    })
    .run();
}

test("a recipient is named as the folder names them, else by their address", () => {
  expect(whoIs({ name: "Mum", email: "mum@example.com" })).toBe("Mum");
  expect(whoIs({ name: " ", email: "mum@example.com" })).toBe("mum@example.com");
  expect(whoIs({ name: "recipient", email: "mum@example.com" })).toBe("mum@example.com");
});

describe("the recipients page's lines", () => {
  test("each reason in plain words; an ended soft bounce and other mailboxes say nothing", () => {
    const sender = createUser(db);
    suppress("mum.gone@example.com", "hard_bounce");
    suppress("sam.spam@example.com", "complaint");
    report(sender.id, "sam.spam@example.com", "complaint");
    suppress("nan.full@example.com", "soft_bounce", new Date(NOW.getTime() + 3 * DAY));
    suppress("old.full@example.com", "soft_bounce", new Date(NOW.getTime() - 1));
    const notices = recipientSuppressionNotices(
      sender.id,
      [
        { name: "Mum", email: "Mum.Gone+family@example.com" },
        { name: "Sam", email: "sam.spam@example.com" },
        { name: "", email: "nan.full@example.com" },
        { name: "Old", email: "old.full@example.com" },
        { name: "Dad", email: "dad@example.com" },
      ],
      day,
      NOW,
    );
    expect(Object.fromEntries(notices)).toEqual({
      "Mum.Gone+family@example.com": "Mum's address no longer exists: nothing is sent to it",
      "sam.spam@example.com":
        "Sam marked your newsletter as spam: nothing is sent to them unless they re-subscribe",
      "nan.full@example.com":
        "nan.full@example.com's mailbox kept refusing mail: nothing is sent to it until 2026-11-23",
    });
  });

  test("a complaint another sender's mail drew does not say it was this sender's", () => {
    const sender = createUser(db);
    const other = createUser(db);
    suppress("kim.elsewhere@example.com", "complaint");
    report(other.id, "kim.elsewhere@example.com", "complaint");
    const notices = recipientSuppressionNotices(
      sender.id,
      [{ name: "Kim", email: "kim.elsewhere@example.com" }],
      day,
      NOW,
    );
    expect(notices.get("kim.elsewhere@example.com")).toBe(
      "Kim reported mail sent through Thoughtfully as spam: nothing is sent to them unless they re-subscribe",
    );
  });
});

test("the Sent archive's lines: per issue, only this sender's copies' reports", () => {
  const sender = createUser(db);
  const other = createUser(db);
  const folder = createFolder(db, sender.id);
  const ledger = db
    .insert(sendLedger)
    .values({ folderId: folder.id, occurrenceKey: "notices", trigger: "schedule", status: "sent" })
    .returning()
    .get();
  const [mum, sam] = db
    .insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: "mum.issue@example.com", status: "sent" as const },
      { ledgerId: ledger.id, email: "sam.issue@example.com", status: "sent" as const },
    ])
    .returning()
    .all();
  report(sender.id, "mum.issue@example.com", "hard_bounce", mum!.id);
  report(sender.id, "sam.issue@example.com", "complaint", sam!.id);
  // A forged report naming this copy for another sender is not this sender's.
  report(other.id, "mum.issue@example.com", "complaint", mum!.id);
  const notices = issueReportNotices(
    sender.id,
    [ledger.id],
    [{ name: "Mum", email: "mum.issue@example.com" }],
  );
  expect(notices.get(ledger.id)).toEqual([
    { email: "mum.issue@example.com", notice: "Mum's address no longer exists" },
    {
      email: "sam.issue@example.com",
      notice: "sam.issue@example.com marked your newsletter as spam",
    },
  ]);
  expect(issueReportNotices(other.id, [ledger.id], []).get(ledger.id)).toEqual([
    {
      email: "mum.issue@example.com",
      notice: "mum.issue@example.com marked your newsletter as spam",
    },
  ]);
});

describe("the folder form", () => {
  const form = (rows: { name: string; email: string }[]) => ({
    name: "Family",
    recipients: rows,
    frequency: "weekly",
  });

  test("refuses adding a mailbox that no longer exists or reported spam, next to its field", () => {
    suppress("gone.form@example.com", "hard_bounce");
    suppress("spam.form@example.com", "complaint");
    suppress("full.form@example.com", "soft_bounce", new Date(Date.now() + DAY));
    const result = folderSchema(suppressedAddressRefusal([])).safeParse(
      form([
        { name: "Mum", email: "gone.form+x@example.com" },
        { name: "Sam", email: "spam.form@example.com" },
        { name: "Nan", email: "full.form@example.com" },
      ]),
    );
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["recipients.0.email", "Mum's address no longer exists: mail to it comes back undelivered"],
      [
        "recipients.1.email",
        "Sam reported mail sent through Thoughtfully as spam: only they can lift that, by re-subscribing from a link they received",
      ],
    ]);
  });

  test("keeps an address the folder lists already", () => {
    suppress("kept.form@example.com", "complaint");
    const result = folderSchema(suppressedAddressRefusal(["kept.form@example.com"])).safeParse(
      form([{ name: "Sam", email: "kept.form@example.com" }]),
    );
    expect(result.success).toBe(true);
  });
});
