import fs from "node:fs";
import { and, eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import {
  deliveryReports,
  folders,
  securityEvents,
  sendLedger,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import { grantRole } from "~/modules/auth/roles.server";
import { runSchedulerPass, SendRuleError, sendNow } from "~/modules/sending/sending.server";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { mailboxKey } from "~/platform/email-address";
import {
  liftSendingPause,
  limitBroken,
  pauseExplanation,
  postmasterOverview,
  REPUTATION_LIMITS,
  reviewSenderReputation,
  senderRates,
  whyNotPaused,
} from "./sender-reputation.server";

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date("2026-11-20T12:00:00Z");
let counter = 0;

/** A sender with one folder and one finished send of `copies` copies, all sent at `sentAt`. */
function senderWithCopies(copies: number, sentAt = new Date(NOW.getTime() - DAY)) {
  const user = createUser(db);
  const folder = createFolder(db, user.id);
  return { user, folder, ledger: addCopies(folder.id, copies, sentAt) };
}

function addCopies(folderId: number, copies: number, sentAt: Date) {
  counter += 1;
  const ledger = db
    .insert(sendLedger)
    .values({ folderId, occurrenceKey: `test-${counter}`, trigger: "schedule", status: "sent" })
    .returning()
    .get();
  for (let start = 0; start < copies; start += 500) {
    db.insert(sendLedgerRecipients)
      .values(
        Array.from({ length: Math.min(500, copies - start) }, (_, index) => ({
          ledgerId: ledger.id,
          email: `r${start + index}@example.com`,
          status: "sent" as const,
          sentAt,
        })),
      )
      .run();
  }
  return ledger;
}

function report(
  senderUserId: number,
  kind: "hard_bounce" | "soft_bounce" | "complaint",
  email: string,
  createdAt = new Date(NOW.getTime() - DAY),
) {
  counter += 1;
  db.insert(deliveryReports)
    .values({
      source: "test",
      sourceEventId: `event-${counter}`,
      senderUserId,
      email,
      mailbox: mailboxKey(email)!,
      kind,
      occurredAt: createdAt,
      createdAt,
    })
    .run();
}

function pauseEvents(userId: number) {
  return db
    .select()
    .from(securityEvents)
    .where(eq(securityEvents.targetUserId, userId))
    .all()
    .map((event) => event.details?.action);
}

describe("the rates and their limits", () => {
  test("below the minimum volume nothing is judged, however bad", () => {
    const { user } = senderWithCopies(REPUTATION_LIMITS.minimumCopies - 1);
    for (const name of ["a", "b", "c", "d", "e"]) report(user.id, "complaint", `${name}@x.test`);
    const rates = senderRates(user.id, NOW);
    expect(rates).toMatchObject({ copies: 19, complaints: 5 });
    expect(limitBroken(rates)).toBeNull();
  });

  test("one complaint never pauses; two people do, once there are enough copies", () => {
    const { user } = senderWithCopies(20);
    report(user.id, "complaint", "uncle@x.test");
    expect(limitBroken(senderRates(user.id, NOW))).toBeNull();
    // The same mailbox again, under another spelling: still one person.
    report(user.id, "complaint", "Uncle+news@x.test");
    expect(senderRates(user.id, NOW).complaints).toBe(1);
    report(user.id, "complaint", "aunt@x.test");
    expect(limitBroken(senderRates(user.id, NOW))).toBe("complaints");
  });

  test("at volume the complaint rate decides: 0.1 % pauses, less does not", () => {
    const { user } = senderWithCopies(2500);
    report(user.id, "complaint", "a@x.test");
    report(user.id, "complaint", "b@x.test");
    expect(senderRates(user.id, NOW).complaintRate).toBeCloseTo(0.0008);
    expect(limitBroken(senderRates(user.id, NOW))).toBeNull();
    report(user.id, "complaint", "c@x.test");
    expect(limitBroken(senderRates(user.id, NOW))).toBe("complaints");
  });

  test("hard bounces: three mailboxes and 5 % of the copies", () => {
    const { user, folder } = senderWithCopies(60);
    report(user.id, "hard_bounce", "gone1@x.test");
    report(user.id, "hard_bounce", "gone2@x.test");
    report(user.id, "soft_bounce", "full@x.test");
    expect(limitBroken(senderRates(user.id, NOW))).toBeNull();
    report(user.id, "hard_bounce", "gone3@x.test");
    expect(limitBroken(senderRates(user.id, NOW))).toBe("hard-bounces");
    expect(pauseExplanation(senderRates(user.id, NOW), "hard-bounces")).toBe(
      "3 of the addresses you sent to no longer exist, out of 60 copies sent recently (5 %; the limit is 5 %).",
    );
    // One more copy and 3 of 61 is under 5 %.
    addCopies(folder.id, 1, new Date(NOW.getTime() - DAY));
    expect(limitBroken(senderRates(user.id, NOW))).toBeNull();
  });

  test("the window is the last 30 days, its first instant included", () => {
    const start = new Date(NOW.getTime() - REPUTATION_LIMITS.windowMs);
    const { user, folder } = senderWithCopies(10, start);
    addCopies(folder.id, 10, new Date(start.getTime() - 1));
    report(user.id, "complaint", "in@x.test", start);
    report(user.id, "complaint", "out@x.test", new Date(start.getTime() - 1));
    report(user.id, "complaint", "later@x.test", new Date(NOW.getTime() + 1));
    expect(senderRates(user.id, NOW)).toMatchObject({ copies: 10, complaints: 1 });
  });

  test("another sender's copies and reports count for them only", () => {
    const { user } = senderWithCopies(20);
    const other = senderWithCopies(20);
    report(other.user.id, "complaint", "a@x.test");
    report(other.user.id, "complaint", "b@x.test");
    expect(senderRates(user.id, NOW)).toMatchObject({ copies: 20, complaints: 0 });
    expect(limitBroken(senderRates(other.user.id, NOW))).toBe("complaints");
  });
});

function outboxFiles() {
  const dir = process.env.OUTBOX_DIR!;
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe("reviewSenderReputation", () => {
  test("pauses once over a limit: the explanation, one security event, one e-mail to each admin", async () => {
    const admin = createUser(db, { email: `admin-${++counter}@example.com` });
    grantRole(admin.id, "admin");
    const { user } = senderWithCopies(20);
    report(user.id, "complaint", "a@x.test");
    report(user.id, "complaint", "b@x.test");
    const before = outboxFiles().length;
    expect(reviewSenderReputation(user.id, NOW)).toEqual({ paused: true, newlyPaused: true });
    expect(reviewSenderReputation(user.id, NOW)).toEqual({ paused: true, newlyPaused: false });
    await waitForBackgroundWork();
    const paused = db.select().from(users).where(eq(users.id, user.id)).get()!;
    expect(paused.sendingPausedAt).toEqual(NOW);
    expect(paused.sendingPausedReason).toBe(
      "2 people marked your newsletter as spam, out of 20 copies sent recently (10 %; the limit is 0.1 %).",
    );
    expect(pauseEvents(user.id)).toEqual(["sending_paused"]);
    const mails = outboxFiles().slice(before);
    expect(mails.length).toBeGreaterThanOrEqual(1);
    const mail = fs.readFileSync(`${process.env.OUTBOX_DIR}/${mails.at(-1)}`, "utf8");
    expect(mail).toContain(`Sending paused for ${user.email}`);
    expect(mail).toContain(admin.email);
  });

  test("a sender under the limits is left alone", () => {
    const { user } = senderWithCopies(20);
    report(user.id, "complaint", "a@x.test");
    expect(reviewSenderReputation(user.id, NOW)).toEqual({ paused: false, newlyPaused: false });
    expect(pauseEvents(user.id)).toEqual([]);
  });

  test("an admin's lift is audited and starts a fresh window: old reports do not pause again", () => {
    const { user, folder } = senderWithCopies(20);
    report(user.id, "complaint", "a@x.test");
    report(user.id, "complaint", "b@x.test");
    reviewSenderReputation(user.id, NOW);
    const request = new Request("http://localhost/admin/senders/1", { method: "POST" });
    expect(liftSendingPause(request, 1, user.id)).toBe(true);
    expect(liftSendingPause(request, 1, user.id)).toBe(false);
    expect(pauseEvents(user.id)).toEqual(["sending_paused", "sending_pause_lifted"]);
    const later = new Date(Date.now() + 2 * DAY);
    expect(reviewSenderReputation(user.id, later).paused).toBe(false);
    // New trouble after the lift is judged on the copies since.
    addCopies(folder.id, 20, new Date(Date.now() + DAY));
    report(user.id, "complaint", "c@x.test", new Date(Date.now() + DAY));
    report(user.id, "complaint", "d@x.test", new Date(Date.now() + DAY));
    expect(senderRates(user.id, later)).toMatchObject({ copies: 20, complaints: 2 });
    expect(reviewSenderReputation(user.id, later).newlyPaused).toBe(true);
  });
});

describe("a paused sender's sends are held, then sent once", () => {
  function pauseNow(userId: number) {
    db.update(users)
      .set({ sendingPausedAt: new Date(), sendingPausedReason: "Too many complaints." })
      .where(eq(users.id, userId))
      .run();
  }
  const unpause = (userId: number) =>
    db
      .update(users)
      .set({ sendingPausedAt: null, sendingPausedReason: null })
      .where(eq(users.id, userId))
      .run();

  test("the scheduled send waits with its clock unmoved and goes out once after the lift", async () => {
    const user = createUser(db);
    const dueAt = new Date(Date.now() - 60_000);
    const folder = createFolder(db, user.id, { nextSendAt: dueAt });
    createItem(db, folder.id);
    pauseNow(user.id);
    expect(await runSchedulerPass()).toEqual({ opened: 0, messages: 0 });
    const held = db.select().from(folders).where(eq(folders.id, folder.id)).get()!;
    expect(held.nextSendAt).toEqual(dueAt);
    unpause(user.id);
    expect((await runSchedulerPass()).messages).toBe(1);
    expect((await runSchedulerPass()).messages).toBe(0);
    const ledgers = db.select().from(sendLedger).where(eq(sendLedger.folderId, folder.id)).all();
    expect(ledgers.map((ledger) => ledger.status)).toEqual(["sent"]);
  });

  test("a send under way keeps its pending copies until the lift", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id, {
      nextSendAt: new Date(Date.now() + DAY),
      recipients: [
        { name: "Mum", email: "mum@example.com" },
        { name: "Dad", email: "dad@example.com" },
      ],
    });
    const item = createItem(db, folder.id);
    const ledger = db
      .insert(sendLedger)
      .values({
        folderId: folder.id,
        occurrenceKey: "held",
        trigger: "schedule",
        status: "sending",
        itemIds: [item.id],
      })
      .returning()
      .get();
    db.insert(sendLedgerRecipients)
      .values([
        { ledgerId: ledger.id, email: "mum@example.com", status: "sent", sentAt: new Date() },
        { ledgerId: ledger.id, email: "dad@example.com" },
      ])
      .run();
    pauseNow(user.id);
    expect((await runSchedulerPass()).messages).toBe(0);
    const pending = and(
      eq(sendLedgerRecipients.ledgerId, ledger.id),
      eq(sendLedgerRecipients.status, "pending"),
    );
    expect(db.select().from(sendLedgerRecipients).where(pending).all()).toHaveLength(1);
    unpause(user.id);
    expect((await runSchedulerPass()).messages).toBe(1);
    expect((await runSchedulerPass()).messages).toBe(0);
    expect(db.select().from(sendLedger).where(eq(sendLedger.id, ledger.id)).get()?.status).toBe(
      "sent",
    );
  });

  test("Send Now is refused with the pause's explanation", async () => {
    const user = createUser(db);
    const folder = createFolder(db, user.id);
    createItem(db, folder.id);
    pauseNow(user.id);
    const refusal = sendNow(user.id, folder.id);
    await expect(refusal).rejects.toThrow(SendRuleError);
    await expect(sendNow(user.id, folder.id)).rejects.toThrow(
      "Your sending is paused: Too many complaints. An admin has been told and will look into it.",
    );
    expect(db.select().from(sendLedger).where(eq(sendLedger.folderId, folder.id)).all()).toEqual(
      [],
    );
  });
});

test("the postmaster view: the service's rates, senders worst first with the paused marked, suppressions", () => {
  const calm = senderWithCopies(100);
  const noisy = senderWithCopies(20);
  report(noisy.user.id, "complaint", "a@x.test");
  report(noisy.user.id, "hard_bounce", "gone@x.test");
  db.update(users).set({ sendingPausedAt: NOW }).where(eq(users.id, calm.user.id)).run();
  const overview = postmasterOverview(NOW);
  const ours = overview.senders.filter((sender) =>
    [calm.user.id, noisy.user.id].includes(sender.userId),
  );
  expect(ours.map((sender) => [sender.email, sender.paused])).toEqual([
    [calm.user.email, true],
    [noisy.user.email, false],
  ]);
  expect(ours[1]).toMatchObject({ copies: 20, complaints: 1, hardBounces: 1, complaintRate: 0.05 });
  expect(overview.service.copies).toBeGreaterThanOrEqual(120);
  expect(overview.service.complaints).toBeGreaterThanOrEqual(1);
});

test("the postmaster is told why a sender over a rate is still active: too few copies, or too few people", () => {
  const rates = (copies: number, complaints: number, hardBounces: number) => ({
    copies,
    complaints,
    hardBounces,
    complaintRate: complaints / copies,
    bounceRate: hardBounces / copies,
  });
  expect(whyNotPaused(rates(3, 1, 0))).toBe("Under 20 copies: too few to judge a rate");
  expect(whyNotPaused(rates(400, 1, 0))).toBe("1 complaint: a pause needs 2");
  expect(whyNotPaused(rates(30, 0, 2))).toBe("2 hard bounces: a pause needs 3");
  expect(whyNotPaused(rates(30, 0, 1))).toBe(null);
  expect(whyNotPaused(rates(2_000, 0, 0))).toBe(null);
  // Over both floors: limitBroken pauses such a sender, so there is nothing to explain.
  expect(limitBroken({ ...rates(100, 3, 0), windowStart: new Date(), softBounces: 0 })).toBe(
    "complaints",
  );
  expect(whyNotPaused(rates(100, 3, 0))).toBe(null);
});
