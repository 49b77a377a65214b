import { eq } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser, uniqueEmail } from "#db/factories";
import { folders, itemAnswers, sendLedger, sendLedgerRecipients, users } from "#db/schema";
import { LIMITS } from "~/modules/plans/limits";
import { unsubscribe } from "~/modules/recipients/opt-outs.server";
import { answerLinkCode, readAnswerLinkCode } from "~/modules/recipients/recipient-links.server";
import { deleteSentIssue } from "~/modules/sending/sent-archive.server";
import { db } from "~/platform/db.server";
import {
  answerPage,
  answersOfCopy,
  answersOfIssue,
  answerTotals,
  checkAnswerLink,
  listAnswers,
  markAnswersSeen,
  newAnswerCount,
  setHeart,
  writeNote,
} from "./answers.server";

let counter = 0;

/** An issue of two items sent to Mum and Dad, with a copy to the sender (cc). */
function seedIssue() {
  counter += 1;
  const user = createUser(db, { email: uniqueEmail("answers"), firstName: "Ada" });
  const folder = createFolder(db, user.id, {
    name: "Family",
    recipients: [
      { name: "Mum", email: "mum@example.com" },
      { name: "Dad", email: "dad@example.com" },
    ],
  });
  const sentAt = new Date();
  const first = createItem(db, folder.id, { title: "Tides", sentAt });
  const second = createItem(db, folder.id, { title: "Garden", sentAt, sortOrder: 1 });
  const ledger = db
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `answers-${counter}`,
      trigger: "send_now",
      status: "sent",
      itemIds: [first.id, second.id],
      completedAt: sentAt,
    })
    .returning()
    .get();
  const [mum, dad, cc] = db
    .insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: "mum@example.com", status: "sent" as const },
      { ledgerId: ledger.id, email: "dad@example.com", status: "sent" as const },
      { ledgerId: ledger.id, email: user.email, kind: "cc" as const, status: "sent" as const },
    ])
    .returning()
    .all() as [
    typeof sendLedgerRecipients.$inferSelect,
    typeof sendLedgerRecipients.$inferSelect,
    typeof sendLedgerRecipients.$inferSelect,
  ];
  return { user, folder, first, second, ledger, mum, dad, cc };
}

describe("answer link codes", () => {
  test("read back to the copy and item they were made for, and nothing else", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (copyId, itemId) => {
          const code = answerLinkCode(copyId, itemId);
          expect(readAnswerLinkCode(code)).toEqual({ copyId, itemId });
          expect(code.length).toBeLessThanOrEqual(40);
        },
      ),
    );
  });

  test("a code changed anywhere, or one item's signature on another, is refused", () => {
    const code = answerLinkCode(41, 7);
    const [copy, item, signature] = code.split(".") as [string, string, string];
    fc.assert(
      fc.property(
        fc.nat({ max: code.length - 1 }),
        fc.string({ minLength: 1, maxLength: 1, unit: "binary" }),
        (at, replacement) => {
          const changed = code.slice(0, at) + replacement + code.slice(at + 1);
          if (changed !== code) expect(readAnswerLinkCode(changed)).toBeNull();
        },
      ),
    );
    expect(readAnswerLinkCode(`${copy}.8.${signature}`)).toBeNull();
    expect(readAnswerLinkCode(`42.${item}.${signature}`)).toBeNull();
    expect(readAnswerLinkCode(`0${code}`)).toBeNull();
    expect(readAnswerLinkCode(`${code}.`)).toBeNull();
    expect(readAnswerLinkCode("x".repeat(5000))).toBeNull();
  });
});

describe("the answer page's link", () => {
  test("opening it records nothing; it shows the item and who to answer", () => {
    const { mum, first } = seedIssue();
    const page = answerPage(answerLinkCode(mum.id, first.id));
    expect(page).toMatchObject({
      state: "open",
      folderName: "Family",
      senderFirstName: "Ada",
      item: { id: first.id, title: "Tides" },
      hearted: false,
      notes: [],
      notesLeft: LIMITS.answers.notesPerRecipientPerIssue,
    });
    expect(db.select().from(itemAnswers).where(eq(itemAnswers.copyId, mum.id)).all()).toEqual([]);
  });

  test("an item of another issue, another sender's copy or a forged code is unknown", () => {
    const one = seedIssue();
    const other = seedIssue();
    expect(checkAnswerLink(answerLinkCode(one.mum.id, other.first.id)).state).toBe("unknown");
    expect(checkAnswerLink(answerLinkCode(other.mum.id, one.first.id)).state).toBe("unknown");
    expect(
      checkAnswerLink(`${one.mum.id.toString(36)}.${one.first.id.toString(36)}.forged`),
    ).toEqual({ state: "unknown" });
    expect(setHeart("nonsense", true)).toEqual({ state: "unknown" });
    expect(writeNote("nonsense", "hello")).toEqual({ state: "unknown" });
  });

  test("a copy that was never delivered, or a ledger still pending, answers nothing", () => {
    const { mum, first, ledger } = seedIssue();
    db.update(sendLedgerRecipients)
      .set({ status: "bounced" })
      .where(eq(sendLedgerRecipients.id, mum.id))
      .run();
    expect(checkAnswerLink(answerLinkCode(mum.id, first.id)).state).toBe("unknown");
    const { dad } = seedIssue();
    db.update(sendLedger).set({ status: "pending" }).where(eq(sendLedger.id, ledger.id)).run();
    expect(checkAnswerLink(answerLinkCode(dad.id, first.id)).state).toBe("unknown");
  });

  test("the sender's own copy answers nothing", () => {
    const { cc, first } = seedIssue();
    expect(checkAnswerLink(answerLinkCode(cc.id, first.id))).toEqual({
      state: "own-copy",
      folderName: "Family",
    });
    expect(setHeart(answerLinkCode(cc.id, first.id), true)).toMatchObject({ state: "own-copy" });
  });

  test("after unsubscribing, the link says so and records nothing", () => {
    const { folder, mum, first } = seedIssue();
    unsubscribe({ folderId: folder.id, email: "Mum@Example.com" });
    const code = answerLinkCode(mum.id, first.id);
    expect(checkAnswerLink(code)).toMatchObject({
      state: "left",
      resubscribe: { email: "mum@example.com", folder: folder.id },
    });
    expect(setHeart(code, true).state).toBe("left");
    expect(writeNote(code, "still here").state).toBe("left");
    expect(db.select().from(itemAnswers).where(eq(itemAnswers.copyId, mum.id)).all()).toEqual([]);
  });
});

describe("hearts and notes", () => {
  test("a heart is one per copy and item; pressing again takes it back", () => {
    const { user, ledger, mum, dad, first, second } = seedIssue();
    const code = answerLinkCode(mum.id, first.id);
    expect(setHeart(code, true)).toEqual({ state: "done", hearted: true });
    expect(setHeart(code, true)).toEqual({ state: "done", hearted: true });
    setHeart(answerLinkCode(dad.id, first.id), true);
    expect(answerPage(code)).toMatchObject({ hearted: true });
    expect(answersOfIssue(user.id, ledger.id).get(first.id)?.hearts).toEqual([
      { email: "mum@example.com", name: "Mum" },
      { email: "dad@example.com", name: "Dad" },
    ]);
    expect(setHeart(code, false)).toEqual({ state: "done", hearted: false });
    expect(answerPage(code)).toMatchObject({ hearted: false });
    expect(answersOfIssue(user.id, ledger.id).get(first.id)?.hearts).toHaveLength(1);
    expect(answersOfIssue(user.id, ledger.id).get(second.id)).toBeUndefined();
  });

  test("a recipient sees only their own notes; the sender sees every note with its writer", () => {
    const { user, ledger, mum, dad, first } = seedIssue();
    writeNote(answerLinkCode(mum.id, first.id), "<b>Lovely</b> & thank you");
    writeNote(answerLinkCode(dad.id, first.id), "Dad's note");
    const mumsPage = answerPage(answerLinkCode(mum.id, first.id));
    expect(mumsPage).toMatchObject({ notes: [{ body: "<b>Lovely</b> & thank you" }] });
    expect(mumsPage.state === "open" && mumsPage.notesLeft).toBe(
      LIMITS.answers.notesPerRecipientPerIssue - 1,
    );
    expect(answersOfIssue(user.id, ledger.id).get(first.id)?.notes).toMatchObject([
      { name: "Mum", body: "<b>Lovely</b> & thank you" },
      { name: "Dad", body: "Dad's note" },
    ]);
    const stranger = createUser(db, { email: uniqueEmail("stranger") });
    expect(answersOfIssue(stranger.id, ledger.id).size).toBe(0);
    expect(answerTotals(user.id, [ledger.id]).get(ledger.id)).toEqual({ hearts: 0, notes: 2 });
    expect(answerTotals(stranger.id, [ledger.id]).size).toBe(0);
    expect(listAnswers(user.id, { limit: 10 }).map((answer) => answer.body)).toEqual([
      "Dad's note",
      "<b>Lovely</b> & thank you",
    ]);
    expect(listAnswers(stranger.id, { limit: 10 })).toEqual([]);
  });

  test("notes stop at the recipient's, the issue's and the sender's day's limits", () => {
    const { mum, first, second } = seedIssue();
    for (let index = 0; index < LIMITS.answers.notesPerRecipientPerIssue; index += 1) {
      const item = index % 2 === 0 ? first : second;
      expect(writeNote(answerLinkCode(mum.id, item.id), `note ${index}`).state).toBe("done");
    }
    expect(writeNote(answerLinkCode(mum.id, first.id), "one more")).toEqual({
      state: "refused",
      reason: "recipient-limit",
    });

    const issue = seedIssue();
    const perIssue = LIMITS.answers.notesPerIssue;
    db.insert(itemAnswers)
      .values(
        Array.from({ length: perIssue }, () => ({
          userId: issue.user.id,
          folderId: issue.folder.id,
          ledgerId: issue.ledger.id,
          copyId: issue.dad.id,
          itemId: issue.first.id,
          email: "dad@example.com",
          kind: "note" as const,
          body: "earlier",
        })),
      )
      .run();
    expect(writeNote(answerLinkCode(issue.mum.id, issue.first.id), "mine")).toEqual({
      state: "refused",
      reason: "issue-limit",
    });

    const busy = seedIssue();
    const yesterday = new Date(Date.now() - 25 * 3_600_000);
    // Notes from other issues of the same sender (each under its issue's limit).
    const others = Array.from({ length: 6 }, () => seedIssue().ledger.id);
    const rows = (createdAt: Date, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        userId: busy.user.id,
        folderId: busy.folder.id,
        ledgerId: others[index % others.length]!,
        copyId: busy.dad.id,
        itemId: busy.first.id,
        email: "dad@example.com",
        kind: "note" as const,
        body: "elsewhere",
        createdAt,
      }));
    // In the last 24 hours and before.
    db.insert(itemAnswers).values(rows(yesterday, 5)).run();
    db.insert(itemAnswers)
      .values(rows(new Date(), LIMITS.answers.notesPerSenderPerDay - 1))
      .run();
    const code = answerLinkCode(busy.mum.id, busy.second.id);
    expect(writeNote(code, "last of the day").state).toBe("done");
    expect(writeNote(code, "one too many")).toEqual({ state: "refused", reason: "sender-limit" });
  });

  test("the web version's view of a copy: codes per item and its hearts; none for the sender's copy", () => {
    const { user, ledger, mum, first, second } = seedIssue();
    setHeart(answerLinkCode(mum.id, second.id), true);
    const copy = answersOfCopy(ledger.id, "mum@example.com");
    expect(copy?.codeFor(first.id)).toBe(answerLinkCode(mum.id, first.id));
    expect(copy?.hearted(first.id)).toBe(false);
    expect(copy?.hearted(second.id)).toBe(true);
    expect(answersOfCopy(ledger.id, user.email)).toBeNull();
  });

  test("new answers count until the Save tab is opened; a deleted issue's answers are gone", async () => {
    const { user, folder, ledger, mum, first } = seedIssue();
    expect(newAnswerCount(user.id)).toBe(0);
    setHeart(answerLinkCode(mum.id, first.id), true);
    writeNote(answerLinkCode(mum.id, first.id), "hello");
    expect(newAnswerCount(user.id)).toBe(2);
    markAnswersSeen(user.id, new Date(Date.now() + 1000));
    expect(newAnswerCount(user.id)).toBe(0);

    expect(await deleteSentIssue(user.id, folder.id, ledger.id)).toBe(true);
    expect(db.select().from(itemAnswers).where(eq(itemAnswers.ledgerId, ledger.id)).all()).toEqual(
      [],
    );
    expect(checkAnswerLink(answerLinkCode(mum.id, first.id)).state).toBe("gone");
  });

  test("deleting the folder or the account deletes its answers", () => {
    const one = seedIssue();
    const two = seedIssue();
    writeNote(answerLinkCode(one.mum.id, one.first.id), "one");
    writeNote(answerLinkCode(two.mum.id, two.first.id), "two");
    db.delete(folders).where(eq(folders.id, one.folder.id)).run();
    db.delete(users).where(eq(users.id, two.user.id)).run();
    const left = db
      .select()
      .from(itemAnswers)
      .where(eq(itemAnswers.userId, one.user.id))
      .all()
      .concat(db.select().from(itemAnswers).where(eq(itemAnswers.userId, two.user.id)).all());
    expect(left).toEqual([]);
  });
});
