import { and, asc, eq, isNull, lte, or } from "drizzle-orm";
import { createElement } from "react";
import { folders, recipientWelcomes, sendLedger, sendLedgerRecipients, users } from "#db/schema";
import { renderEmail } from "#emails/render.server";
import {
  type NextIssue,
  nextIssueSentence,
  Welcome,
  type WelcomeInput,
  welcomeSubject,
} from "#emails/welcome";
import { recipientsOf } from "~/modules/folders/folders.server";
import {
  activeRecipients,
  hasOptedOut,
  markBounced,
  unsubscribe,
} from "~/modules/recipients/opt-outs.server";
import {
  readWelcomeLinkCode,
  unsubscribeMailto,
  unsubscribeUrl,
  welcomeUrl,
} from "~/modules/recipients/recipient-links.server";
import { runInBackground } from "~/platform/background-work.server";
import { formatDay } from "~/platform/dates";
import { db, writeTransaction } from "~/platform/db.server";
import { comparableMailbox } from "~/platform/email-address";
import { env } from "~/platform/env.server";
import { faultPoint } from "~/platform/fault-points.server";
import { refuseMailForOthers } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { consumeRateLimit } from "~/platform/rate-limit.server";
import { listIdHeader } from "./list-id.server";
import { RECIPIENT_LINK_USES, type RecipientLinkUse } from "./recipient-link-limit.server";
import { readRelayAnswer } from "./relay-answers.server";
import { relayAnswered, relayGate, relayRefused } from "./relay-hold.server";
import { RETRY_DELAYS_MS } from "./sending.server";
import { sendOwnerNoticesSoon } from "./waiting-reminders.server";

/**
 * A welcome before the first issue (docs/decisions/0208-a-welcome-before-the-first-issue.md):
 * each mailbox a sender adds to a folder gets one short e-mail in the
 * sender's name, once per (folder, mailbox), with "Sounds lovely" and "Not
 * for me". The row is claimed with the folder's save
 * (app/modules/folders/folders.server.ts); here it is sent exactly as the
 * waiting reminders are (docs/decisions/0198-waiting-items-reminder.md): taken
 * under a lease, sent with a Message-ID derived from its id, marked sent in a
 * durable commit. A crash before the mark sends it once more, after the lease,
 * with the same Message-ID; a sent welcome is never sent again.
 */

/** How long a run holds a welcome it is sending; past it, a crashed run's welcome is taken over. */
export const WELCOME_LEASE_MS = 10 * 60 * 1000;

/** Owners who may send: a verified address, sending not paused. Their welcomes wait otherwise. */
const reachableOwner = and(eq(users.emailVerified, true), isNull(users.sendingPausedAt));

function dueWelcomes(now: Date) {
  return db
    .select({ welcome: recipientWelcomes, folder: folders, owner: users })
    .from(recipientWelcomes)
    .innerJoin(folders, eq(folders.id, recipientWelcomes.folderId))
    .innerJoin(users, eq(users.id, folders.userId))
    .where(
      and(
        eq(recipientWelcomes.status, "pending"),
        or(isNull(recipientWelcomes.nextAttemptAt), lte(recipientWelcomes.nextAttemptAt, now)),
        reachableOwner,
      ),
    )
    .orderBy(asc(recipientWelcomes.id))
    .all();
}

type Due = ReturnType<typeof dueWelcomes>[number];

/** Takes the welcome for this run: only one run sends it, until its lease is over. */
function leaseWelcome(welcomeId: number, now: Date) {
  return (
    writeTransaction((tx) =>
      tx
        .update(recipientWelcomes)
        .set({ nextAttemptAt: new Date(now.getTime() + WELCOME_LEASE_MS) })
        .where(
          and(
            eq(recipientWelcomes.id, welcomeId),
            eq(recipientWelcomes.status, "pending"),
            or(isNull(recipientWelcomes.nextAttemptAt), lte(recipientWelcomes.nextAttemptAt, now)),
          ),
        )
        .run(),
    ).changes === 1
  );
}

function senderNameOf(owner: { firstName: string | null; lastName: string | null; email: string }) {
  return [owner.firstName, owner.lastName].filter(Boolean).join(" ").trim() || owner.email;
}

/**
 * When this mailbox's next issue of the folder comes: the folder's next send
 * ("Mon 7 Dec" in the sender's zone; a skipped one is already passed over),
 * none while paused; and whether an issue already reached the mailbox, so a
 * welcome that waited (an unverified sender, a limit) never calls the next
 * one its first.
 */
function nextIssueOf(folder: Due["folder"], timeZone: string, mailbox: string): NextIssue {
  const sentTo = db
    .selectDistinct({ email: sendLedgerRecipients.email })
    .from(sendLedgerRecipients)
    .innerJoin(sendLedger, eq(sendLedger.id, sendLedgerRecipients.ledgerId))
    .where(
      and(
        eq(sendLedger.folderId, folder.id),
        eq(sendLedgerRecipients.kind, "recipient"),
        eq(sendLedgerRecipients.status, "sent"),
      ),
    )
    .all();
  return {
    nextIssueOn:
      folder.isPaused || !folder.nextSendAt
        ? null
        : formatDay(folder.nextSendAt, timeZone, { year: false }),
    alreadySent: sentTo.some((row) => comparableMailbox(row.email) === mailbox),
  };
}

/** The name the sender gave the recipient ("Dad"); null for none or the legacy stand-in. */
function givenName(name: string | null | undefined) {
  const trimmed = name?.trim();
  return trimmed && trimmed !== "recipient" ? trimmed : null;
}

function appHost() {
  return new URL(env.APP_URL).hostname || "thoughtfully.local";
}

function setWelcome(welcomeId: number, values: Partial<typeof recipientWelcomes.$inferInsert>) {
  writeTransaction((tx) =>
    tx.update(recipientWelcomes).set(values).where(eq(recipientWelcomes.id, welcomeId)).run(),
  );
}

/** Sends one welcome: "sent", "not sent", or "held" when the relay refuses us (the run stops). */
async function deliverWelcome({ welcome, folder, owner }: Due, now: Date) {
  if (!leaseWelcome(welcome.id, now)) return "not sent";
  const listed = recipientsOf(folder).find(
    (recipient) => comparableMailbox(recipient.email) === welcome.mailbox,
  );
  if (!listed) {
    // Taken off the folder before their welcome went: put back later, they are welcomed then.
    db.delete(recipientWelcomes).where(eq(recipientWelcomes.id, welcome.id)).run();
    return "not sent";
  }
  const stillReceives = activeRecipients(folder, now).some(
    (recipient) => comparableMailbox(recipient.email) === welcome.mailbox,
  );
  if (!stillReceives) {
    // They left, bounced or are suppressed: the welcome would be the mail they said no to.
    setWelcome(welcome.id, { status: "skipped", nextAttemptAt: null });
    return "not sent";
  }
  const waitSeconds = await refuseMailForOthers("welcome", `user:${owner.id}`, welcome.mailbox);
  if (waitSeconds !== null) {
    setWelcome(welcome.id, { nextAttemptAt: new Date(now.getTime() + waitSeconds * 1000) });
    return "not sent";
  }
  const senderName = senderNameOf(owner);
  const content: WelcomeInput = {
    senderName,
    senderEmail: owner.email,
    folderName: folder.name,
    recipientName: givenName(listed.name),
    ...nextIssueOf(folder, owner.timeZone, welcome.mailbox),
    yesUrl: welcomeUrl(folder.id, welcome.email, "yes"),
    noUrl: welcomeUrl(folder.id, welcome.email, "no"),
  };
  // The relay refuses us: the welcome waits, untouched, for the hold's next try.
  const gate = relayGate(now);
  if (gate.state === "held") {
    setWelcome(welcome.id, { nextAttemptAt: gate.until });
    return "held";
  }
  const attempts = welcome.attempts + 1;
  const { html, text } = renderEmail(createElement(Welcome, content));
  try {
    await sendEmail({
      to: welcome.email,
      subject: welcomeSubject(content),
      html,
      text,
      replyTo: owner.email,
      fromName: `${senderName} via Thoughtfully`,
      messageId: `<welcome-${welcome.id}@${appHost()}>`,
      headers: {
        "List-Unsubscribe": `<${unsubscribeUrl(folder.id, welcome.email)}>, <${unsubscribeMailto(folder.id, welcome.email)}>`,
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "List-ID": listIdHeader(folder, appHost()),
      },
    });
  } catch (error) {
    // Read as an issue's copy is (relay-answers.server.ts): only an answer about the
    // recipient bounces them; a refusal of us holds sending, the welcome waiting untouched
    // unless the refusal came at its RCPT TO; a refused message retries like a 4xx.
    const answer = readRelayAnswer(error);
    if (answer.verdict === "relay") {
      const nextTryAt = relayRefused(answer, gate, now);
      setWelcome(
        welcome.id,
        answer.countsAsTry ? retriedWelcome(attempts, now) : { nextAttemptAt: nextTryAt },
      );
      return "held";
    }
    const bounced = answer.verdict === "bounce";
    setWelcome(
      welcome.id,
      bounced ? { attempts, status: "failed", nextAttemptAt: null } : retriedWelcome(attempts, now),
    );
    if (gate.state !== "open" && answer.verdict !== "retry") relayAnswered(now);
    // The sender sees it as they see an issue's bounce.
    if (bounced) markBounced(folder.id, welcome.email, answer.words);
    console.error(`[welcome] welcome ${welcome.id} of folder ${folder.id} failed: ${answer.words}`);
    return "not sent";
  }
  faultPoint("welcome-accepted");
  // Durable before the next welcome goes: a crash resends at most this one.
  setWelcome(welcome.id, { status: "sent", attempts, sentAt: now, nextAttemptAt: null });
  if (gate.state !== "open") relayAnswered(now);
  return "sent";
}

/** A welcome tried `attempts` times: it waits for its retry (three in all), then fails. */
function retriedWelcome(attempts: number, now: Date) {
  const failed = attempts > RETRY_DELAYS_MS.length;
  return {
    attempts,
    status: failed ? ("failed" as const) : ("pending" as const),
    nextAttemptAt: failed ? null : new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]!),
  };
}

/**
 * Sends every welcome waiting, one at a time: those a save just claimed, and
 * those a crash, a retry's wait, a rate limit or an unverified sender left
 * pending. Run after each save that adds recipients and every minute
 * (app/lifecycle.server.ts). Returns how many e-mails went.
 */
export async function sendWelcomes(now = new Date()) {
  let messages = 0;
  for (const due of dueWelcomes(now)) {
    try {
      const outcome = await deliverWelcome(due, now);
      if (outcome === "sent") messages += 1;
      // The relay refuses us: the rest wait for it too, untouched.
      if (outcome === "held") break;
    } catch (error) {
      // One broken welcome must not hold up everyone else's.
      console.error(`[welcome] welcome ${due.welcome.id} failed`, error);
    }
  }
  return messages;
}

/**
 * After a save that may have added recipients: their welcomes go now, without
 * holding the response; the job every minute picks up whatever this leaves.
 */
export function sendWelcomesSoon() {
  runInBackground("welcomes", () => sendWelcomes());
}

export type WelcomeAnswer = "yes" | "no";

/**
 * Takes one use of a welcome link, counted per folder and address with the
 * other recipient links' limit. A forged code passes untouched: its route
 * answers 404 without work.
 */
export async function takeWelcomeLinkUse(code: string): Promise<RecipientLinkUse> {
  const link = readWelcomeLinkCode(code);
  if (!link) return { allowed: true };
  const verdict = await consumeRateLimit(
    RECIPIENT_LINK_USES,
    `welcome:${link.folderId}:${link.email}`,
  );
  return verdict.allowed
    ? { allowed: true }
    : { allowed: false, retryAfterSeconds: verdict.retryAfterSeconds };
}

/** What the welcome page shows for a code. */
export type WelcomePage =
  | { state: "unknown" }
  | {
      state: "open" | "left";
      folderName: string;
      senderName: string;
      /** "The first issue comes on Mon 7 Dec.", as the welcome said it. */
      nextIssue: string;
      answer: WelcomeAnswer | null;
    };

function welcomeOf(folderId: number, email: string) {
  return db
    .select()
    .from(recipientWelcomes)
    .where(
      and(
        eq(recipientWelcomes.folderId, folderId),
        eq(recipientWelcomes.mailbox, comparableMailbox(email)),
      ),
    )
    .get();
}

/**
 * The page of a welcome link: "unknown" for a forged code or a folder gone
 * (or that no longer lists the address), "left" once the address takes no
 * mail from the folder, else "open" with what the recipient answered so far.
 */
export function welcomePage(code: string): WelcomePage {
  const link = readWelcomeLinkCode(code);
  if (!link) return { state: "unknown" };
  const row = db
    .select({ folder: folders, owner: users })
    .from(folders)
    .innerJoin(users, eq(users.id, folders.userId))
    .where(eq(folders.id, link.folderId))
    .get();
  const mailbox = comparableMailbox(link.email);
  if (
    !row ||
    !recipientsOf(row.folder).some((recipient) => comparableMailbox(recipient.email) === mailbox)
  ) {
    return { state: "unknown" };
  }
  const senderName = senderNameOf(row.owner);
  return {
    state: hasOptedOut(link.folderId, link.email) ? "left" : "open",
    folderName: row.folder.name,
    senderName,
    nextIssue: nextIssueSentence(senderName, nextIssueOf(row.folder, row.owner.timeZone, mailbox)),
    answer: welcomeOf(link.folderId, link.email)?.answer ?? null,
  };
}

/**
 * The recipient's press on the welcome page. "yes" is recorded for the
 * sender to see; "no" unsubscribes the address from the folder at once, as
 * the unsubscribe page does, and is recorded too. Returns the page as it is
 * now; a press on a link that cannot answer changes nothing.
 */
export function answerWelcome(code: string, answer: WelcomeAnswer, request?: Request) {
  const page = welcomePage(code);
  const link = readWelcomeLinkCode(code);
  if (page.state !== "open" || !link) return page;
  if (answer === "no") {
    const lastRecipientLeft = unsubscribe({
      folderId: link.folderId,
      email: link.email,
      reason: "not_interested",
      request,
    });
    // The folder's last recipient said no: its sender hears of it once.
    if (lastRecipientLeft) sendOwnerNoticesSoon();
  }
  const welcome = welcomeOf(link.folderId, link.email);
  if (welcome) setWelcome(welcome.id, { answer, answeredAt: new Date() });
  return welcomePage(code);
}

/** What the sender may see of each mailbox's welcome in a folder: sent when, and a "yes". */
export type WelcomeState = {
  status: "pending" | "sent" | "skipped" | "failed";
  sentAt: Date | null;
  saidYes: boolean;
};

/**
 * The folder's welcomes, looked up by a listed address (any spelling of its
 * mailbox), for its Recipients dialog. The caller checked the owner.
 */
export function welcomeStates(folderId: number): (email: string) => WelcomeState | undefined {
  const byMailbox = new Map(
    db
      .select()
      .from(recipientWelcomes)
      .where(eq(recipientWelcomes.folderId, folderId))
      .all()
      .map((row) => [
        row.mailbox,
        { status: row.status, sentAt: row.sentAt, saidYes: row.answer === "yes" },
      ]),
  );
  return (email) => byMailbox.get(comparableMailbox(email));
}
