import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { users } from "#db/schema";
import { createAnswer, createSentIssue } from "#db/sent-issue-factories";
import { db } from "~/platform/db.server";
import { newAnswersByIssue } from "./answers-seen.server";

/** A sent issue of one item to Mum, with her heart at `heartAt` and her note at `noteAt`. */
function answeredIssue(userId: number, heartAt: Date, noteAt: Date) {
  const folder = createFolder(db, userId);
  const { ledger, items, copies } = createSentIssue(db, folder.id, {
    titles: ["Garden"],
    emails: ["mum@example.com"],
  });
  const answer = { userId, folderId: folder.id, copy: copies[0]!, itemId: items[0]!.id };
  createAnswer(db, { ...answer, createdAt: heartAt });
  createAnswer(db, { ...answer, body: "Lovely", createdAt: noteAt });
  return ledger.id;
}

describe("newAnswersByIssue", () => {
  test("counts every answer before the sender first opens Save, then only later ones", () => {
    const user = createUser(db);
    const first = answeredIssue(user.id, new Date("2026-11-01"), new Date("2026-11-03"));
    const second = answeredIssue(user.id, new Date("2026-11-01"), new Date("2026-11-01"));
    expect(newAnswersByIssue(user.id, [first, second])).toEqual(
      new Map([
        [first, 2],
        [second, 2],
      ]),
    );

    db.update(users)
      .set({ answersSeenAt: new Date("2026-11-02") })
      .where(eq(users.id, user.id))
      .run();
    expect(newAnswersByIssue(user.id, [first, second])).toEqual(new Map([[first, 1]]));
  });

  test("counts only the sender's own issues", () => {
    const sender = createUser(db);
    const other = createUser(db);
    const theirs = answeredIssue(other.id, new Date(), new Date());
    expect(newAnswersByIssue(sender.id, [theirs])).toEqual(new Map());
    expect(newAnswersByIssue(sender.id, [])).toEqual(new Map());
  });
});
