import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { emailDeliveries, sendLedger, sendLedgerRecipients } from "#db/schema";
import { ANALYTICS_DETAIL_RETENTION_DAYS } from "~/modules/plans/limits";
import { issueLinkCode } from "~/modules/recipients/recipient-links.server";
import { db } from "~/platform/db.server";
import { followClick, pruneAnalyticsDetails, recordOpen } from "./delivery-analytics.server";

let counter = 0;

/** A sent issue with one link, to a recipient and the sender's own copy. */
function seed(tracked: boolean) {
  counter += 1;
  const user = createUser(db, { email: `stats${counter}@example.com` });
  const folder = createFolder(db, user.id, { name: "F", recipients: [] });
  const item = createItem(db, folder.id, {
    type: "link",
    title: "t",
    urls: ["https://a.test/story"],
    sentAt: new Date(),
  });
  const ledger = db
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `k${counter}`,
      trigger: "send_now",
      status: "sent",
      itemIds: [item.id],
      tracked,
    })
    .returning()
    .get();
  const mum = `mum${counter}@example.com`;
  db.insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: mum, status: "sent" },
      { ledgerId: ledger.id, email: user.email, kind: "cc", status: "sent" },
    ])
    .run();
  db.insert(emailDeliveries)
    .values([
      { folderId: folder.id, ledgerId: ledger.id, recipientEmail: mum },
      { folderId: folder.id, ledgerId: ledger.id, recipientEmail: user.email },
    ])
    .run();
  const delivery = (email: string) =>
    db.select().from(emailDeliveries).where(eq(emailDeliveries.recipientEmail, email)).get()!;
  return { user, ledger, mum, delivery };
}

test("an untracked send counts nothing, but its links still lead only to its own addresses", () => {
  const { ledger, mum, delivery } = seed(false);
  expect(recordOpen(issueLinkCode("open", ledger.id, mum), "Mail")).toBe(false);
  const click = issueLinkCode("click", ledger.id, mum);
  expect(followClick(click, "https://a.test/story")).toBe("https://a.test/story");
  expect(followClick(click, "https://elsewhere.test/")).toBeNull();
  expect(delivery(mum)).toMatchObject({ openCount: 0, clickCount: 0 });
});

test("the sender's own copy is never counted", () => {
  const { user, ledger, delivery } = seed(true);
  expect(recordOpen(issueLinkCode("open", ledger.id, user.email), "Mail")).toBe(false);
  expect(delivery(user.email).openCount).toBe(0);
});

test("an open code is no click code", () => {
  const { ledger, mum } = seed(true);
  expect(followClick(issueLinkCode("open", ledger.id, mum), "https://a.test/story")).toBeNull();
});

test("user agents are forgotten after the retention, the counts stay", () => {
  const { ledger, mum, delivery } = seed(true);
  expect(recordOpen(issueLinkCode("open", ledger.id, mum), "Mail/1.0")).toBe(true);
  expect(delivery(mum)).toMatchObject({ openCount: 1, userAgent: "Mail/1.0" });
  pruneAnalyticsDetails(new Date(Date.now() + (ANALYTICS_DETAIL_RETENTION_DAYS - 1) * 86_400_000));
  expect(delivery(mum).userAgent).toBe("Mail/1.0");
  pruneAnalyticsDetails(new Date(Date.now() + (ANALYTICS_DETAIL_RETENTION_DAYS + 1) * 86_400_000));
  expect(delivery(mum)).toMatchObject({ openCount: 1, userAgent: null });
});
