import { and, asc, eq, exists, isNull, lte, or, sql } from "drizzle-orm";
import { createElement } from "react";
import { answerDigests, contentItems, folders, itemAnswers, sendLedger, users } from "#db/schema";
import {
  AnswersGathered,
  answersGatheredSubject,
  type GatheredFolder,
} from "#emails/answers-gathered";
import { renderEmail } from "#emails/render.server";
import { localParts } from "~/modules/folders/schedule.server";
import { RETRY_DELAYS_MS } from "~/modules/sending/sending.server";
import { formatDay, isoDay } from "~/platform/dates";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { faultPoint } from "~/platform/fault-points.server";
import { refuseAccountMail } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { nameFor } from "./answers.server";

/**
 * Recipients' answers reach their sender by e-mail
 * (docs/decisions/0166-answers-reach-the-sender-by-mail.md): gathered once a
 * day at most, never one e-mail per heart; a folder may ask for each note at
 * once instead (its hearts still wait for the day's gathering), or for none.
 *
 * An e-mail is a row in `answer_digests`, unique per sender and key
 * ("daily:<sender's local date>" or "note:<answer id>"), and the answers it
 * carries point at it (`digest_id`), both written in one transaction: an
 * answer is claimed by one digest only, and a day has one gathering. Then the
 * digest is sent, exactly as a send ledger's copy is
 * (docs/decisions/0167-answer-mail-sent-like-a-ledger.md): taken under a
 * lease (`next_attempt_at` moved past the send), sent with a Message-ID
 * derived from its id, marked sent in a durable commit before the next one
 * goes. A crash before the mark sends that one e-mail again, once, with the
 * same Message-ID; a sent digest is never sent again.
 */

/** The day's gathering goes at the first run from this hour on, in the sender's time zone. */
export const DAILY_GATHERING_HOUR = 18;

/** How long a run holds a digest it is sending; past it, a crashed run's digest is taken over. */
export const DIGEST_LEASE_MS = 10 * 60 * 1000;

/** Senders who may receive mail from us: a verified address, sending not paused. */
const reachableSender = and(eq(users.emailVerified, true), isNull(users.sendingPausedAt));

/** Answers of this folder setting that the daily gathering carries: hearts of "each" too. */
const gatheredDaily = or(
  eq(folders.answerEmails, "daily"),
  and(eq(folders.answerEmails, "each"), eq(itemAnswers.kind, "heart")),
);

function appHost() {
  return new URL(env.APP_URL).hostname || "thoughtfully.local";
}

/**
 * Gives every unmailed answer that is due its digest: each note of an "each"
 * folder its own at once, and, from DAILY_GATHERING_HOUR in the sender's zone,
 * the rest of the sender's answers today's gathering, unless today has one
 * already (then they wait for tomorrow's). Answers of "none" folders are left
 * alone. One write transaction: a crash leaves all of it or none.
 */
export function claimAnswers(now = new Date()) {
  return writeTransaction((tx) => {
    let claimed = 0;
    const openDigest = (userId: number, key: string) =>
      tx
        .insert(answerDigests)
        .values({ userId, key, createdAt: now })
        .onConflictDoNothing()
        .returning({ id: answerDigests.id })
        .get();

    const notesAtOnce = tx
      .select({ id: itemAnswers.id, userId: itemAnswers.userId })
      .from(itemAnswers)
      .innerJoin(folders, eq(folders.id, itemAnswers.folderId))
      .innerJoin(users, eq(users.id, itemAnswers.userId))
      .where(
        and(
          isNull(itemAnswers.digestId),
          eq(itemAnswers.kind, "note"),
          eq(folders.answerEmails, "each"),
          reachableSender,
        ),
      )
      .orderBy(asc(itemAnswers.id))
      .all();
    for (const note of notesAtOnce) {
      const digest = openDigest(note.userId, `note:${note.id}`);
      if (!digest) continue;
      tx.update(itemAnswers).set({ digestId: digest.id }).where(eq(itemAnswers.id, note.id)).run();
      claimed += 1;
    }

    const senders = tx
      .selectDistinct({ id: users.id, timeZone: users.timeZone })
      .from(itemAnswers)
      .innerJoin(folders, eq(folders.id, itemAnswers.folderId))
      .innerJoin(users, eq(users.id, itemAnswers.userId))
      .where(and(isNull(itemAnswers.digestId), gatheredDaily, reachableSender))
      .all();
    for (const sender of senders) {
      if (localParts(now, sender.timeZone).hour < DAILY_GATHERING_HOUR) continue;
      const digest = openDigest(sender.id, `daily:${isoDay(now, sender.timeZone)}`);
      if (!digest) continue;
      const folderGathersDaily = tx
        .select({ one: sql`1` })
        .from(folders)
        .where(and(eq(folders.id, itemAnswers.folderId), gatheredDaily));
      claimed += tx
        .update(itemAnswers)
        .set({ digestId: digest.id })
        .where(
          and(
            eq(itemAnswers.userId, sender.id),
            isNull(itemAnswers.digestId),
            exists(folderGathersDaily),
          ),
        )
        .run().changes;
    }
    return claimed;
  });
}

/** A digest's answers as the e-mail shows them; empty when they are all gone (issue deleted). */
function gatheredFolders(digestId: number, userId: number, timeZone: string): GatheredFolder[] {
  const rows = db
    .select({
      answer: itemAnswers,
      folder: { id: folders.id, name: folders.name, recipients: folders.recipients },
      ledger: {
        id: sendLedger.id,
        completedAt: sendLedger.completedAt,
        createdAt: sendLedger.createdAt,
      },
      itemTitle: contentItems.title,
    })
    .from(itemAnswers)
    .innerJoin(folders, eq(folders.id, itemAnswers.folderId))
    .innerJoin(sendLedger, eq(sendLedger.id, itemAnswers.ledgerId))
    .innerJoin(contentItems, eq(contentItems.id, itemAnswers.itemId))
    .where(
      and(
        eq(itemAnswers.digestId, digestId),
        eq(itemAnswers.userId, userId),
        isNull(sendLedger.deletedAt),
      ),
    )
    .orderBy(
      asc(folders.name),
      asc(folders.id),
      asc(sendLedger.id),
      asc(contentItems.sortOrder),
      asc(contentItems.id),
      asc(itemAnswers.id),
    )
    .all();
  const byFolder = new Map<number, GatheredFolder>();
  const byIssue = new Map<number, GatheredFolder["issues"][number]>();
  const byItem = new Map<number, GatheredFolder["issues"][number]["items"][number]>();
  for (const { answer, folder, ledger, itemTitle } of rows) {
    let gatheredFolder = byFolder.get(folder.id);
    if (!gatheredFolder) {
      gatheredFolder = {
        name: folder.name,
        settingsUrl: `${env.APP_URL}/folders/${folder.id}/edit`,
        issues: [],
      };
      byFolder.set(folder.id, gatheredFolder);
    }
    let issue = byIssue.get(ledger.id);
    if (!issue) {
      issue = {
        day: formatDay(ledger.completedAt ?? ledger.createdAt, timeZone),
        archiveUrl: `${env.APP_URL}/folders/${folder.id}/sent/${ledger.id}`,
        items: [],
      };
      byIssue.set(ledger.id, issue);
      gatheredFolder.issues.push(issue);
    }
    let item = byItem.get(answer.itemId);
    if (!item) {
      item = { id: answer.itemId, title: itemTitle, hearts: [], notes: [] };
      byItem.set(answer.itemId, item);
      issue.items.push(item);
    }
    const name = nameFor(folder.recipients, answer.email);
    if (answer.kind === "heart") item.hearts.push(name);
    else item.notes.push({ id: answer.id, name, email: answer.email, body: answer.body ?? "" });
  }
  return [...byFolder.values()];
}

function onlyNoteWriter(gathered: GatheredFolder[]) {
  return gathered[0]?.issues[0]?.items[0]?.notes[0]?.email;
}

/** Digests waiting to go whose time has come (a retry's wait or a lease over), of reachable senders. */
function dueDigests(now: Date) {
  return db
    .select({ digest: answerDigests, sender: users })
    .from(answerDigests)
    .innerJoin(users, eq(users.id, answerDigests.userId))
    .where(
      and(
        eq(answerDigests.status, "pending"),
        or(isNull(answerDigests.nextAttemptAt), lte(answerDigests.nextAttemptAt, now)),
        reachableSender,
      ),
    )
    .orderBy(asc(answerDigests.id))
    .all();
}

/** Takes the digest for this run: only one run sends it, until its lease is over. */
function leaseDigest(digestId: number, now: Date) {
  return (
    writeTransaction((tx) =>
      tx
        .update(answerDigests)
        .set({ nextAttemptAt: new Date(now.getTime() + DIGEST_LEASE_MS) })
        .where(
          and(
            eq(answerDigests.id, digestId),
            eq(answerDigests.status, "pending"),
            or(isNull(answerDigests.nextAttemptAt), lte(answerDigests.nextAttemptAt, now)),
          ),
        )
        .run(),
    ).changes === 1
  );
}

function isPermanent(error: unknown) {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}

type Due = ReturnType<typeof dueDigests>[number];

/** Sends one digest; true when an e-mail went out. */
async function deliverDigest({ digest, sender }: Due, now: Date) {
  if (!leaseDigest(digest.id, now)) return false;
  const gathered = gatheredFolders(digest.id, sender.id, sender.timeZone);
  if (gathered.length === 0) {
    // Its answers went with their issue, folder or a heart taken back: nothing to tell.
    db.delete(answerDigests).where(eq(answerDigests.id, digest.id)).run();
    return false;
  }
  const waitSeconds = await refuseAccountMail("answers-to-sender", `user:${sender.id}`);
  if (waitSeconds !== null) {
    db.update(answerDigests)
      .set({ nextAttemptAt: new Date(now.getTime() + waitSeconds * 1000) })
      .where(eq(answerDigests.id, digest.id))
      .run();
    return false;
  }
  const attempts = digest.attempts + 1;
  const { html, text } = renderEmail(
    createElement(AnswersGathered, {
      firstName: sender.firstName,
      folders: gathered,
      archiveUrl: `${env.APP_URL}/save`,
    }),
  );
  try {
    await sendEmail({
      to: sender.email,
      subject: answersGatheredSubject(gathered),
      html,
      text,
      messageId: `<answers-${digest.id}@${appHost()}>`,
      // A note on its own: the sender's plain Reply goes to its writer, as its link does.
      replyTo: digest.key.startsWith("note:") ? onlyNoteWriter(gathered) : undefined,
    });
  } catch (error) {
    const exhausted = attempts > RETRY_DELAYS_MS.length;
    const failed = exhausted || isPermanent(error);
    db.update(answerDigests)
      .set({
        attempts,
        status: failed ? "failed" : "pending",
        nextAttemptAt: failed ? null : new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]!),
      })
      .where(eq(answerDigests.id, digest.id))
      .run();
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[answers] digest ${digest.id} to user ${sender.id} failed: ${message}`);
    return false;
  }
  faultPoint("answer-mail-accepted");
  // Durable before the next digest goes: a crash resends at most this one.
  writeTransaction((tx) =>
    tx
      .update(answerDigests)
      .set({ status: "sent", attempts, sentAt: now, nextAttemptAt: null })
      .where(eq(answerDigests.id, digest.id))
      .run(),
  );
  return true;
}

export type GatheringResult = { claimed: number; messages: number };

/**
 * One run of the answer mail (every minute, app/lifecycle.server.ts): claims
 * what is due, then sends every digest waiting, one at a time, including
 * those a crashed run or a failure left pending.
 */
export async function gatherAnswers(now = new Date()): Promise<GatheringResult> {
  const claimed = claimAnswers(now);
  if (claimed > 0) faultPoint("answers-claimed");
  let messages = 0;
  for (const due of dueDigests(now)) {
    try {
      if (await deliverDigest(due, now)) messages += 1;
    } catch (error) {
      // One sender's broken digest must not hold up everyone else's.
      console.error(`[answers] digest ${due.digest.id} failed`, error);
    }
  }
  return { claimed, messages };
}
