import { eq, inArray } from "drizzle-orm";
import { expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import {
  deliveryReports,
  mailboxSuppressions,
  sendLedger,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import { activeRecipients, skipIfOptedOut } from "~/modules/recipients/opt-outs.server";
import { db } from "~/platform/db.server";
import {
  type DeliveryReportKind,
  recordDeliveryReport,
  SOFT_BOUNCE_SUPPRESSION_DAYS,
} from "./delivery-reports.server";
import { suppressionFor, suppressionsFor } from "./suppressions.server";

let counter = 0;

function senderWithFolder(recipients: { name: string; email: string }[]) {
  counter += 1;
  const user = createUser(db, { email: `reports${counter}@example.com` });
  return createFolder(db, user.id, { name: `Folder ${counter}`, recipients });
}

/** One send of the folder to `email`; the copy's ledger recipient id. */
function sentCopy(folderId: number, email: string, status: "sent" | "pending" = "sent") {
  counter += 1;
  const ledger = db
    .insert(sendLedger)
    .values({ folderId, occurrenceKey: `test:${counter}`, trigger: "send_now", status: "sent" })
    .returning()
    .get();
  return db
    .insert(sendLedgerRecipients)
    .values({ ledgerId: ledger.id, email, status })
    .returning()
    .get().id;
}

let eventId = 0;
function report(ledgerRecipientId: number, kind: DeliveryReportKind, sourceEventId?: string) {
  eventId += 1;
  return recordDeliveryReport({
    source: "postmark",
    sourceEventId: sourceEventId ?? `event-${eventId}`,
    ledgerRecipientId,
    kind,
    detail: "test",
    occurredAt: new Date(),
  });
}

test("a hard bounce suppresses the mailbox for every sender, under every spelling", () => {
  const folder = senderWithFolder([{ name: "Mum", email: "mum.hard@example.com" }]);
  const other = senderWithFolder([
    { name: "Mum", email: "Mum.Hard+family@example.com" },
    { name: "Dad", email: "dad.hard@example.com" },
  ]);
  const copy = sentCopy(folder.id, "mum.hard@example.com");
  expect(report(copy, "hard_bounce")).toMatchObject({ outcome: "recorded", suppressed: true });
  expect(suppressionFor("mum.hard@example.com")).toMatchObject({
    reason: "hard_bounce",
    suppressedUntil: null,
    email: "mum.hard@example.com",
  });
  expect(activeRecipients(folder)).toEqual([]);
  expect(activeRecipients(other).map((recipient) => recipient.email)).toEqual([
    "dad.hard@example.com",
  ]);
  const otherCopy = sentCopy(other.id, "Mum.Hard+family@example.com", "pending");
  expect(skipIfOptedOut(other.id, { id: otherCopy, email: "Mum.Hard+family@example.com" })).toBe(
    true,
  );
  expect(
    db.select().from(sendLedgerRecipients).where(eq(sendLedgerRecipients.id, otherCopy)).get(),
  ).toMatchObject({ status: "skipped", lastError: "suppressed: hard_bounce" });
});

test("a complaint suppresses, and a later hard bounce does not overwrite it", () => {
  const folder = senderWithFolder([{ name: "Sam", email: "sam.complains@example.com" }]);
  const first = sentCopy(folder.id, "sam.complains@example.com");
  const second = sentCopy(folder.id, "sam.complains@example.com");
  expect(report(first, "complaint")).toMatchObject({ suppressed: true });
  expect(report(second, "hard_bounce")).toMatchObject({ outcome: "recorded", suppressed: false });
  expect(suppressionFor("sam.complains@example.com")?.reason).toBe("complaint");
});

test("the same report delivered twice counts once", () => {
  const folder = senderWithFolder([{ name: "Twice", email: "twice@example.com" }]);
  const copy = sentCopy(folder.id, "twice@example.com");
  expect(report(copy, "soft_bounce", "same-event")).toMatchObject({ outcome: "recorded" });
  expect(report(copy, "soft_bounce", "same-event")).toEqual({ outcome: "duplicate" });
  expect(
    db.select().from(deliveryReports).where(eq(deliveryReports.sourceEventId, "same-event")).all(),
  ).toHaveLength(1);
});

test("a report for a copy that was never sent, or does not exist, is not recorded", () => {
  const folder = senderWithFolder([{ name: "Never", email: "never@example.com" }]);
  const pending = sentCopy(folder.id, "never@example.com", "pending");
  expect(report(pending, "hard_bounce")).toEqual({ outcome: "unknown copy" });
  expect(report(999_999, "complaint")).toEqual({ outcome: "unknown copy" });
  expect(suppressionFor("never@example.com")).toBeNull();
});

test("three soft bounces in a row suppress for a week; a copy without one in between breaks the run", () => {
  const folder = senderWithFolder([{ name: "Full", email: "full.box@example.com" }]);
  const copies = Array.from({ length: 4 }, () => sentCopy(folder.id, "full.box@example.com"));
  report(copies[0]!, "soft_bounce");
  // copies[1] was delivered: no report for it.
  report(copies[2]!, "soft_bounce");
  expect(report(copies[3]!, "soft_bounce")).toMatchObject({ suppressed: false });
  expect(suppressionFor("full.box@example.com")).toBeNull();

  const later = sentCopy(folder.id, "Full.Box+x@example.com");
  const before = Date.now();
  expect(report(later, "soft_bounce")).toMatchObject({ suppressed: true });
  const suppression = suppressionFor("full.box@example.com");
  expect(suppression?.reason).toBe("soft_bounce");
  const days = (suppression!.suppressedUntil!.getTime() - before) / (24 * 60 * 60 * 1000);
  expect(days).toBeCloseTo(SOFT_BOUNCE_SUPPRESSION_DAYS, 1);
  // Once the week is over, the mailbox gets mail again.
  const afterwards = new Date(suppression!.suppressedUntil!.getTime() + 1000);
  expect(suppressionFor("full.box@example.com", afterwards)).toBeNull();
  expect(activeRecipients(folder, afterwards)).toHaveLength(1);
  expect(activeRecipients(folder)).toHaveLength(0);
});

test("a hard bounce replaces a soft bounce suppression with one until lifted", () => {
  const folder = senderWithFolder([{ name: "Gone", email: "gone.later@example.com" }]);
  const copies = Array.from({ length: 4 }, () => sentCopy(folder.id, "gone.later@example.com"));
  for (const copy of copies.slice(0, 3)) report(copy, "soft_bounce");
  expect(suppressionFor("gone.later@example.com")?.reason).toBe("soft_bounce");
  report(copies[3]!, "hard_bounce");
  expect(suppressionFor("gone.later@example.com")).toMatchObject({
    reason: "hard_bounce",
    suppressedUntil: null,
  });
});

test("suppressionsFor answers for several mailboxes at once, and only those suppressed", () => {
  const folder = senderWithFolder([]);
  report(sentCopy(folder.id, "many.a@example.com"), "hard_bounce");
  report(sentCopy(folder.id, "many.b@example.com"), "complaint");
  const found = suppressionsFor(["many.a@example.com", "many.b@example.com", "many.c@example.com"]);
  expect([...found.keys()].sort()).toEqual(["many.a@example.com", "many.b@example.com"]);
  expect(db.select().from(mailboxSuppressions).all().length).toBeGreaterThanOrEqual(2);
});

test("the report that tips a sender over the complaint limit pauses them at once", () => {
  const folder = senderWithFolder([
    { name: "Ann", email: "ann.tips@example.com" },
    { name: "Bea", email: "bea.tips@example.com" },
  ]);
  const copies = Array.from({ length: 20 }, (_, index) =>
    sentCopy(folder.id, index % 2 === 0 ? "ann.tips@example.com" : "bea.tips@example.com"),
  );
  db.update(sendLedgerRecipients)
    .set({ sentAt: new Date() })
    .where(inArray(sendLedgerRecipients.id, copies))
    .run();
  const sender = () => db.select().from(users).where(eq(users.id, folder.userId)).get();
  report(copies[0]!, "complaint");
  expect(sender()?.sendingPausedAt).toBeNull();
  report(copies[1]!, "complaint");
  expect(sender()?.sendingPausedAt).toBeInstanceOf(Date);
});
