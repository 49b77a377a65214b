import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createFolder, createItem, createUser, uniqueEmail } from "#db/factories";
import {
  answerDigests,
  folders,
  itemAnswers,
  sendLedger,
  sendLedgerRecipients,
  users,
} from "#db/schema";
import { answerLinkCode } from "~/modules/recipients/recipient-links.server";
import { RETRY_DELAYS_MS } from "~/modules/sending/sending.server";
import { deleteSentIssue } from "~/modules/sending/sent-archive.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { listOutbox, readOutboxMessage } from "~/platform/mailer.server";
import { claimAnswers, DIGEST_LEASE_MS, gatherAnswers } from "./answer-mail.server";
import { setHeart, writeNote } from "./answers.server";

const MINUTE = 60_000;

/** A sender with one sent issue of two items to two recipients, and an answer code per copy and item. */
function seedIssue(
  options: { answerEmails?: "daily" | "each" | "none"; timeZone?: string; user?: object } = {},
) {
  const user = createUser(db, { timeZone: options.timeZone ?? "UTC", ...options.user });
  const folder = createFolder(db, user.id, {
    name: "Family",
    recipients: [
      { name: "Mum", email: "mum@example.com" },
      { name: "Dad", email: "dad@example.com" },
    ],
    answerEmails: options.answerEmails ?? "daily",
  });
  const sentAt = new Date("2026-11-30T00:01:00Z");
  const photo = createItem(db, folder.id, { title: "Beach day", sortOrder: 0, sentAt });
  const story = createItem(db, folder.id, { title: "A story", sortOrder: 1, sentAt });
  const ledger = db
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `test:${user.id}`,
      trigger: "schedule",
      status: "sent",
      itemIds: [photo.id, story.id],
      completedAt: sentAt,
    })
    .returning()
    .get();
  const [mum, dad] = db
    .insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: "mum@example.com", status: "sent" as const },
      { ledgerId: ledger.id, email: "dad@example.com", status: "sent" as const },
    ])
    .returning()
    .all();
  return {
    user,
    folder,
    ledger,
    code: {
      mumPhoto: answerLinkCode(mum!.id, photo.id),
      mumStory: answerLinkCode(mum!.id, story.id),
      dadPhoto: answerLinkCode(dad!.id, photo.id),
    },
  };
}

async function mailTo(email: string) {
  const entries = (await listOutbox()).filter((entry) => entry.to.includes(email));
  return Promise.all(entries.map(async (entry) => (await readOutboxMessage(entry.id))!));
}

const at = (iso: string) => new Date(iso);

describe("the daily gathering", () => {
  test("goes once a day per sender, from 18:00 in their zone, however often it runs", async () => {
    const { user, code } = seedIssue();
    setHeart(code.mumPhoto, true);
    setHeart(code.dadPhoto, true);
    writeNote(code.mumStory, "Lovely <b>story</b>", at("2026-11-30T09:00:00Z"));

    expect((await gatherAnswers(at("2026-11-30T17:59:00Z"))).messages).toBe(0);
    expect(await mailTo(user.email)).toHaveLength(0);

    expect((await gatherAnswers(at("2026-11-30T18:00:00Z"))).messages).toBe(1);
    for (const minute of [1, 2, 30, 300]) {
      await gatherAnswers(new Date(at("2026-11-30T18:00:00Z").getTime() + minute * MINUTE));
    }
    const [mail, ...more] = await mailTo(user.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe("Your recipients answered: 2 hearts and 1 note");
    expect(mail!.text).toContain("♥ from Mum, Dad");
    expect(mail!.text).toContain("Mum wrote: “Lovely <b>story</b>”");
    expect(mail!.html).toContain("Lovely &lt;b&gt;story&lt;/b&gt;");
    expect(mail!.html).toContain('href="mailto:mum@example.com?subject=Re%3A%20A%20story"');

    // A heart after today's gathering waits for tomorrow's.
    setHeart(code.mumStory, true);
    expect((await gatherAnswers(at("2026-11-30T23:00:00Z"))).messages).toBe(0);
    expect((await gatherAnswers(at("2026-12-01T17:00:00Z"))).messages).toBe(0);
    expect((await gatherAnswers(at("2026-12-01T18:10:00Z"))).messages).toBe(1);
    const second = (await mailTo(user.email)).find((message) => message.id !== mail!.id)!;
    expect(second.subject).toBe("Your recipients answered: 1 heart");
    expect(second.text).not.toContain("Lovely");
  });

  test("reads 18:00 on the sender's own clock", async () => {
    const { user, code } = seedIssue({ timeZone: "Pacific/Auckland" });
    setHeart(code.mumPhoto, true);
    // 04:59 UTC is 17:59 in Auckland (UTC+13 in November); 05:00 is 18:00.
    expect((await gatherAnswers(at("2026-11-30T04:59:00Z"))).messages).toBe(0);
    expect((await gatherAnswers(at("2026-11-30T05:00:00Z"))).messages).toBe(1);
    const digest = db.select().from(answerDigests).where(eq(answerDigests.userId, user.id)).get();
    expect(digest).toMatchObject({ key: "daily:2026-11-30", status: "sent" });
  });
});

describe("each note at once", () => {
  test("mails a note at once, alone, and leaves hearts to the daily gathering", async () => {
    const { user, code } = seedIssue({ answerEmails: "each" });
    setHeart(code.mumPhoto, true);
    setHeart(code.dadPhoto, true);
    expect((await gatherAnswers(at("2026-11-30T10:00:00Z"))).messages).toBe(0);

    writeNote(code.mumStory, "Call me", at("2026-11-30T10:05:00Z"));
    expect((await gatherAnswers(at("2026-11-30T10:06:00Z"))).messages).toBe(1);
    expect((await gatherAnswers(at("2026-11-30T10:07:00Z"))).messages).toBe(0);
    const [note] = await mailTo(user.email);
    expect(note!.subject).toBe("Mum wrote back about “A story”");
    expect(note!.text).not.toContain("♥");
    expect(note!.raw).toMatch(/^Reply-To: mum@example\.com$/m);

    expect((await gatherAnswers(at("2026-11-30T18:01:00Z"))).messages).toBe(1);
    const daily = (await mailTo(user.email)).find((message) => message.id !== note!.id)!;
    expect(daily.subject).toBe("Your recipients answered: 2 hearts");
    expect(daily.raw).not.toMatch(/^Reply-To:/m);
  });
});

describe("mail that never goes", () => {
  test('"none" mails nothing and leaves the answers unclaimed', async () => {
    const { user, code } = seedIssue({ answerEmails: "none" });
    setHeart(code.mumPhoto, true);
    writeNote(code.mumStory, "Hello", at("2026-11-30T09:00:00Z"));
    await gatherAnswers(at("2026-11-30T10:00:00Z"));
    await gatherAnswers(at("2026-11-30T18:30:00Z"));
    expect(await mailTo(user.email)).toHaveLength(0);
    const answers = db.select().from(itemAnswers).where(eq(itemAnswers.userId, user.id)).all();
    expect(answers.map((answer) => answer.digestId)).toEqual([null, null]);
  });

  test("a paused or unverified sender gets nothing until that changes", async () => {
    const paused = seedIssue({ user: { sendingPausedAt: new Date() } });
    const unverified = seedIssue({ user: { emailVerified: false, email: uniqueEmail() } });
    setHeart(paused.code.mumPhoto, true);
    setHeart(unverified.code.mumPhoto, true);
    await gatherAnswers(at("2026-11-30T18:30:00Z"));
    expect(await mailTo(paused.user.email)).toHaveLength(0);
    expect(await mailTo(unverified.user.email)).toHaveLength(0);
    // Held, not lost: once the pause is lifted and the address confirmed, the day's gathering goes.
    db.update(users).set({ sendingPausedAt: null }).where(eq(users.id, paused.user.id)).run();
    db.update(users).set({ emailVerified: true }).where(eq(users.id, unverified.user.id)).run();
    expect((await gatherAnswers(at("2026-11-30T18:31:00Z"))).messages).toBe(2);
  });

  test("a deleted issue's answers are never mailed, even once claimed", async () => {
    const { user, folder, ledger, code } = seedIssue();
    setHeart(code.mumPhoto, true);
    writeNote(code.mumStory, "Hello", at("2026-11-30T09:00:00Z"));
    expect(claimAnswers(at("2026-11-30T18:00:00Z"))).toBe(2);
    expect(await deleteSentIssue(user.id, folder.id, ledger.id)).toBe(true);
    expect((await gatherAnswers(at("2026-11-30T18:01:00Z"))).messages).toBe(0);
    expect(await mailTo(user.email)).toHaveLength(0);
    expect(db.select().from(answerDigests).where(eq(answerDigests.userId, user.id)).all()).toEqual(
      [],
    );
  });
});

describe("crash safety", () => {
  test("a crash between the claim and the send sends once, and only once, on the next run", async () => {
    const { user, code } = seedIssue();
    setHeart(code.mumPhoto, true);
    // The run that claimed died before sending: only its claim is left.
    expect(claimAnswers(at("2026-11-30T18:00:00Z"))).toBe(1);
    expect((await gatherAnswers(at("2026-11-30T18:01:00Z"))).messages).toBe(1);
    expect((await gatherAnswers(at("2026-11-30T18:02:00Z"))).messages).toBe(0);
    expect(await mailTo(user.email)).toHaveLength(1);
  });

  test("a crash after the server accepted it resends that one e-mail once, with the same Message-ID", async () => {
    const { user, code } = seedIssue();
    setHeart(code.mumPhoto, true);
    const start = at("2026-11-30T18:00:00Z");
    expect((await gatherAnswers(start)).messages).toBe(1);
    // What a crash before the "sent" mark leaves: the digest pending under the dead run's lease.
    const digest = db.select().from(answerDigests).where(eq(answerDigests.userId, user.id)).get()!;
    db.update(answerDigests)
      .set({
        status: "pending",
        sentAt: null,
        attempts: 0,
        nextAttemptAt: new Date(start.getTime() + DIGEST_LEASE_MS),
      })
      .where(eq(answerDigests.id, digest.id))
      .run();
    // Within the lease nobody takes it; past it, the next run sends it again, once.
    expect((await gatherAnswers(new Date(start.getTime() + MINUTE))).messages).toBe(0);
    const later = new Date(start.getTime() + DIGEST_LEASE_MS + MINUTE);
    expect((await gatherAnswers(later)).messages).toBe(1);
    expect((await gatherAnswers(new Date(later.getTime() + MINUTE))).messages).toBe(0);
    const copies = await mailTo(user.email);
    expect(copies).toHaveLength(2);
    const ids = copies.map((message) => /^Message-ID: (.+)$/im.exec(message.raw)?.[1]?.trim());
    expect(ids[0]).toBe(`<answers-${digest.id}@localhost>`);
    expect(ids[1]).toBe(ids[0]);
  });

  test("a folder deleted meanwhile takes its answers with it", async () => {
    const { user, folder, code } = seedIssue();
    setHeart(code.mumPhoto, true);
    db.delete(folders).where(eq(folders.id, folder.id)).run();
    expect((await gatherAnswers(at("2026-11-30T18:00:00Z"))).messages).toBe(0);
    expect(await mailTo(user.email)).toHaveLength(0);
  });
});

describe("with the other mail", () => {
  test("past the account's hourly mail limit, notes wait rather than go or fail", async () => {
    const { user, folder, ledger } = seedIssue({ answerEmails: "each" });
    const copy = db
      .select()
      .from(sendLedgerRecipients)
      .where(eq(sendLedgerRecipients.ledgerId, ledger.id))
      .get()!;
    const now = at("2026-11-30T10:00:00Z");
    db.insert(itemAnswers)
      .values(
        Array.from({ length: 21 }, (_, index) => ({
          userId: user.id,
          folderId: folder.id,
          ledgerId: ledger.id,
          copyId: copy.id,
          itemId: ledger.itemIds[0]!,
          email: copy.email,
          kind: "note" as const,
          body: `Note ${index}`,
        })),
      )
      .run();
    expect(await gatherAnswers(now)).toEqual({ claimed: 21, messages: 20 });
    const waiting = db
      .select()
      .from(answerDigests)
      .where(eq(answerDigests.status, "pending"))
      .all()
      .filter((digest) => digest.userId === user.id);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.attempts).toBe(0);
    expect(waiting[0]!.nextAttemptAt!.getTime()).toBeGreaterThan(now.getTime());
  });

  test("a failed send is retried later and given up after its last try", async () => {
    const { user, code } = seedIssue();
    setHeart(code.mumPhoto, true);
    const outbox = env.OUTBOX_DIR;
    const blocker = path.join(outbox, "..", "not-a-directory");
    fs.writeFileSync(blocker, "");
    env.OUTBOX_DIR = path.join(blocker, "outbox");
    try {
      let now = at("2026-11-30T18:00:00Z");
      for (const delay of [...RETRY_DELAYS_MS, 0]) {
        expect((await gatherAnswers(now)).messages).toBe(0);
        // Not before its wait is over.
        expect((await gatherAnswers(new Date(now.getTime() + 1000))).messages).toBe(0);
        now = new Date(now.getTime() + delay);
      }
    } finally {
      env.OUTBOX_DIR = outbox;
    }
    const digest = db.select().from(answerDigests).where(eq(answerDigests.userId, user.id)).get();
    expect(digest).toMatchObject({ status: "failed", attempts: RETRY_DELAYS_MS.length + 1 });
    expect((await gatherAnswers(at("2026-12-01T18:00:00Z"))).messages).toBe(0);
  });
});
