import { and, asc, eq, exists, gt, isNull, lte, not, or, sql } from "drizzle-orm";
import { createElement } from "react";
import { contentItems, folders, users, waitingReminders } from "#db/schema";
import { EveryoneLeft, everyoneLeftSubject } from "#emails/everyone-left";
import { renderEmail } from "#emails/render.server";
import {
  VideosHeldBack,
  type VideosHeldBackInput,
  videosHeldBackSubject,
} from "#emails/videos-held-back";
import {
  WaitingReminder,
  type WaitingReminderInput,
  waitingReminderSubject,
} from "#emails/waiting-reminder";
import { recipientsOf } from "~/modules/folders/folders.server";
import { localParts, occurrenceKey } from "~/modules/folders/schedule.server";
import { hasItsNote, videosNotPrepared } from "~/modules/items/needs-note.server";
import { everyoneLeftLine } from "~/modules/recipients/next-issue-line";
import { runInBackground } from "~/platform/background-work.server";
import { formatDateTime } from "~/platform/dates";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { faultPoint } from "~/platform/fault-points.server";
import { refuseAccountMail } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { RETRY_DELAYS_MS } from "./sending.server";

/**
 * The day before a folder's send, its owner hears about the items still
 * waiting for a note (docs/decisions/0198-waiting-items-reminder.md): one
 * e-mail per folder occurrence, from REMINDER_HOUR in the owner's time zone on
 * the local day before the send; none when nothing waits, for a paused or
 * unsubscribed folder, or for an owner whose address is not verified or whose
 * sending is paused.
 *
 * The same rows and run tell a sender, within minutes, that a scheduled send
 * went by with nothing to send because its only items were videos not
 * prepared (kind "video", inserted by the send that skipped:
 * docs/decisions/0220-a-send-held-back-by-its-videos-is-told.md), and that a
 * folder's last recipient unsubscribed (kind "left", inserted by the opt-out:
 * docs/decisions/0249-the-sender-told-when-the-last-recipient-leaves.md).
 *
 * Exactly once, as the answer mail is
 * (docs/decisions/0167-answer-mail-sent-like-a-ledger.md): a reminder is a row
 * of `waiting_reminders`, unique per (folder, occurrence), inserted in one
 * transaction before anything is sent; then taken under a lease
 * (`next_attempt_at` moved past the send), sent with a Message-ID derived from
 * its id, and marked sent in a durable commit before the next one goes. A
 * crash before the mark sends that one e-mail again, once, with the same
 * Message-ID, after the lease; a sent reminder is never sent again.
 */

/** The reminder goes at the first run from this hour, in the owner's zone, on the day before the send. */
export const REMINDER_HOUR = 9;

/** How long a run holds a reminder it is sending; past it, a crashed run's reminder is taken over. */
export const REMINDER_LEASE_MS = 10 * 60 * 1000;

const DAY_MS = 86_400_000;

/** A send is at most this far ahead when it is "tomorrow" (a local day is at most 25 hours long). */
const TOMORROW_HORIZON_MS = 2 * DAY_MS + 2 * 3_600_000;

/** Owners who may receive mail from us: a verified address, sending not paused. */
const reachableOwner = and(eq(users.emailVerified, true), isNull(users.sendingPausedAt));

/** A folder whose scheduled send still goes: not paused, someone still subscribed. */
const folderStillSends = and(eq(folders.isPaused, false), eq(folders.isUnsubscribed, false));

/** Unsent items of the folder that wait for a note. */
const waitingItemOfFolder = () =>
  db
    .select({ one: sql`1` })
    .from(contentItems)
    .where(
      and(eq(contentItems.folderId, folders.id), isNull(contentItems.sentAt), not(hasItsNote)),
    );

function localDayNumber(date: Date, timeZone: string) {
  const { year, month, day } = localParts(date, timeZone);
  return Math.round(Date.UTC(year, month - 1, day) / DAY_MS);
}

/**
 * Whether a send at `sendAt` is tomorrow in `timeZone` and the reminder's
 * hour has come today: the local calendar, so month and year ends and
 * daylight-saving days count as one day each.
 */
export function reminderIsDue(sendAt: Date, timeZone: string, now: Date) {
  if (sendAt.getTime() <= now.getTime()) return false;
  if (localDayNumber(sendAt, timeZone) !== localDayNumber(now, timeZone) + 1) return false;
  return localParts(now, timeZone).hour >= REMINDER_HOUR;
}

/**
 * Gives every folder whose send is tomorrow in its owner's zone, once the
 * reminder's hour has come, and which has items waiting, its reminder row
 * (insert or nothing: an occurrence has one). One write transaction: a crash
 * leaves all of them or none. Returns how many were claimed now.
 */
export function claimWaitingReminders(now = new Date()) {
  return writeTransaction((tx) => {
    const candidates = tx
      .select({
        folderId: folders.id,
        userId: folders.userId,
        nextSendAt: folders.nextSendAt,
        timeZone: users.timeZone,
      })
      .from(folders)
      .innerJoin(users, eq(users.id, folders.userId))
      .where(
        and(
          gt(folders.nextSendAt, now),
          lte(folders.nextSendAt, new Date(now.getTime() + TOMORROW_HORIZON_MS)),
          folderStillSends,
          reachableOwner,
          exists(waitingItemOfFolder()),
        ),
      )
      .orderBy(asc(folders.id))
      .all();
    let claimed = 0;
    for (const folder of candidates) {
      if (!folder.nextSendAt || !reminderIsDue(folder.nextSendAt, folder.timeZone, now)) continue;
      claimed += tx
        .insert(waitingReminders)
        .values({
          folderId: folder.folderId,
          userId: folder.userId,
          occurrenceKey: occurrenceKey(folder.nextSendAt),
          createdAt: now,
        })
        .onConflictDoNothing()
        .run().changes;
    }
    return claimed;
  });
}

/** Reminders waiting to go whose time has come (a retry's wait or a lease over), of reachable owners. */
function dueReminders(now: Date) {
  return db
    .select({ reminder: waitingReminders, owner: users })
    .from(waitingReminders)
    .innerJoin(users, eq(users.id, waitingReminders.userId))
    .where(
      and(
        eq(waitingReminders.status, "pending"),
        or(isNull(waitingReminders.nextAttemptAt), lte(waitingReminders.nextAttemptAt, now)),
        reachableOwner,
      ),
    )
    .orderBy(asc(waitingReminders.id))
    .all();
}

/** Takes the reminder for this run: only one run sends it, until its lease is over. */
function leaseReminder(reminderId: number, now: Date) {
  return (
    writeTransaction((tx) =>
      tx
        .update(waitingReminders)
        .set({ nextAttemptAt: new Date(now.getTime() + REMINDER_LEASE_MS) })
        .where(
          and(
            eq(waitingReminders.id, reminderId),
            eq(waitingReminders.status, "pending"),
            or(isNull(waitingReminders.nextAttemptAt), lte(waitingReminders.nextAttemptAt, now)),
          ),
        )
        .run(),
    ).changes === 1
  );
}

/** The folder's unsent items, in its order, split into those that go and those that wait. */
function itemsOf(folderId: number) {
  const rows = db
    .select({ id: contentItems.id, title: contentItems.title, hasNote: hasItsNote })
    .from(contentItems)
    .where(and(eq(contentItems.folderId, folderId), isNull(contentItems.sentAt)))
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .all();
  return {
    going: rows.filter((row) => Boolean(row.hasNote)).length,
    waiting: rows.filter((row) => !row.hasNote),
  };
}

type Due = ReturnType<typeof dueReminders>[number];

/**
 * What the reminder says now, or null when it has nothing left to say: the
 * folder was paused, its send moved or went, or every item got its note.
 */
function reminderContent({ reminder, owner }: Due, now: Date): WaitingReminderInput | null {
  const folder = db
    .select()
    .from(folders)
    .where(and(eq(folders.id, reminder.folderId), folderStillSends))
    .get();
  if (!folder?.nextSendAt || folder.nextSendAt.getTime() <= now.getTime()) return null;
  if (occurrenceKey(folder.nextSendAt) !== reminder.occurrenceKey) return null;
  const { going, waiting } = itemsOf(folder.id);
  if (waiting.length === 0) return null;
  return {
    firstName: owner.firstName,
    folderName: folder.name,
    sendsAt: formatDateTime(folder.nextSendAt, owner.timeZone),
    goingCount: going,
    items: waiting.map((item) => ({
      id: item.id,
      title: item.title,
      editUrl: `${env.APP_URL}/folders/${folder.id}/items/${item.id}/edit`,
    })),
    folderUrl: `${env.APP_URL}/folders/${folder.id}`,
  };
}

/**
 * What the notice of a send held back by its videos says now, or null when the videos are all
 * prepared or gone meanwhile: they go with the next send, and nothing is left to tell.
 */
function heldBackContent({ reminder, owner }: Due): VideosHeldBackInput | null {
  const folder = db.select().from(folders).where(eq(folders.id, reminder.folderId)).get();
  if (!folder) return null;
  const videos = videosNotPrepared(owner.id, folder.id);
  if (videos.length === 0) return null;
  return {
    firstName: owner.firstName,
    folderName: folder.name,
    videos: videos.map((video) => ({
      id: video.id,
      title: video.title,
      editUrl: `${env.APP_URL}/folders/${folder.id}/items/${video.id}/edit`,
    })),
    folderUrl: `${env.APP_URL}/folders/${folder.id}`,
  };
}

/**
 * The e-mail of a folder its last recipient left, or null once it has a
 * recipient again (one came back, or the sender added one): then nothing is
 * left to tell.
 */
function everyoneLeftMail({ reminder, owner }: Due) {
  const folder = db
    .select()
    .from(folders)
    .where(and(eq(folders.id, reminder.folderId), eq(folders.isUnsubscribed, true)))
    .get();
  if (!folder) return null;
  const content = {
    firstName: owner.firstName,
    folderName: folder.name,
    whoLeft: everyoneLeftLine(recipientsOf(folder)),
    addUrl: `${env.APP_URL}/folders/${folder.id}/edit`,
  };
  return { subject: everyoneLeftSubject(content), body: createElement(EveryoneLeft, content) };
}

/** The e-mail of a reminder row, by its kind, or null when there is nothing left to say. */
function reminderMail(due: Due, now: Date) {
  if (due.reminder.kind === "left") return everyoneLeftMail(due);
  if (due.reminder.kind === "video") {
    const content = heldBackContent(due);
    return (
      content && {
        subject: videosHeldBackSubject(content),
        body: createElement(VideosHeldBack, content),
      }
    );
  }
  const content = reminderContent(due, now);
  return (
    content && {
      subject: waitingReminderSubject(content),
      body: createElement(WaitingReminder, content),
    }
  );
}

function appHost() {
  return new URL(env.APP_URL).hostname || "thoughtfully.local";
}

function isPermanent(error: unknown) {
  const code = (error as { responseCode?: number }).responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}

/** Sends one reminder; true when an e-mail went out. */
async function deliverReminder(due: Due, now: Date) {
  const { reminder, owner } = due;
  if (!leaseReminder(reminder.id, now)) return false;
  const mail = reminderMail(due, now);
  if (!mail) {
    // Nothing waits any more, or the send it announced will not go: nothing to tell.
    db.delete(waitingReminders).where(eq(waitingReminders.id, reminder.id)).run();
    return false;
  }
  const waitSeconds = await refuseAccountMail("waiting-reminder", `user:${owner.id}`);
  if (waitSeconds !== null) {
    db.update(waitingReminders)
      .set({ nextAttemptAt: new Date(now.getTime() + waitSeconds * 1000) })
      .where(eq(waitingReminders.id, reminder.id))
      .run();
    return false;
  }
  const attempts = reminder.attempts + 1;
  const { html, text } = renderEmail(mail.body);
  try {
    await sendEmail({
      to: owner.email,
      subject: mail.subject,
      html,
      text,
      messageId: `<waiting-${reminder.id}@${appHost()}>`,
    });
  } catch (error) {
    const failed = attempts > RETRY_DELAYS_MS.length || isPermanent(error);
    db.update(waitingReminders)
      .set({
        attempts,
        status: failed ? "failed" : "pending",
        nextAttemptAt: failed ? null : new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]!),
      })
      .where(eq(waitingReminders.id, reminder.id))
      .run();
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[waiting] reminder ${reminder.id} to user ${owner.id} failed: ${message}`);
    return false;
  }
  faultPoint("waiting-reminder-accepted");
  // Durable before the next reminder goes: a crash resends at most this one.
  writeTransaction((tx) =>
    tx
      .update(waitingReminders)
      .set({ status: "sent", attempts, sentAt: now, nextAttemptAt: null })
      .where(eq(waitingReminders.id, reminder.id))
      .run(),
  );
  return true;
}

export type ReminderRunResult = { claimed: number; messages: number };

/**
 * One run of the reminder job (app/lifecycle.server.ts): claims the reminders
 * that are due, then sends every one waiting, one at a time, including those
 * a crashed run or a failure left pending.
 */
export async function remindWaitingItems(now = new Date()): Promise<ReminderRunResult> {
  const claimed = claimWaitingReminders(now);
  if (claimed > 0) faultPoint("waiting-reminders-claimed");
  return { claimed, messages: await sendDueReminders(now) };
}

/** Sends every reminder row waiting whose time has come, one at a time; returns how many went. */
async function sendDueReminders(now: Date) {
  let messages = 0;
  for (const due of dueReminders(now)) {
    try {
      if (await deliverReminder(due, now)) messages += 1;
    } catch (error) {
      // One broken reminder must not hold up everyone else's.
      console.error(`[waiting] reminder ${due.reminder.id} failed`, error);
    }
  }
  return messages;
}

/**
 * After an opt-out that left a folder with nobody (`unsubscribe` returned
 * true): its sender's notice goes now, without holding the response; the
 * reminders' run every five minutes picks up whatever this leaves.
 */
export function sendOwnerNoticesSoon() {
  runInBackground("owner-notices", () => sendDueReminders(new Date()));
}
