import crypto from "node:crypto";
import { and, asc, eq, exists, isNull, lte, not, or, type SQL, sql } from "drizzle-orm";
import type { Attachment } from "nodemailer/lib/mailer";
import {
  contentItems,
  emailAttempts,
  emailDeliveries,
  folders,
  newMessageToken,
  sendLedger,
  sendLedgerRecipients,
  users,
  waitingReminders,
} from "#db/schema";
import type { ContentItem, SendLedger, SendLedgerRecipient, User } from "#db/types";
import type { HeldBackItem } from "#emails/newsletter";
import {
  attachmentsFor,
  personalize,
  type RenderedNewsletter,
  renderNewsletter,
} from "#emails/newsletter.server";
import type { SessionUser } from "~/modules/auth/session.server";
import { copyHeaders, returnPathFor } from "~/modules/deliverability/copy-token.server";
import { recordDeliveryReport } from "~/modules/deliverability/delivery-reports.server";
import { reviewSenderReputation } from "~/modules/deliverability/sender-reputation.server";
import { type Folder, reconcileStoragePause } from "~/modules/folders/folders.server";
import { nextSendAt, occurrenceKey } from "~/modules/folders/schedule.server";
import {
  hasItsNote,
  isPrepared,
  itemsThatWait,
  videosNotPrepared,
} from "~/modules/items/needs-note.server";
import { isPremium } from "~/modules/plans/quota.server";
import {
  activeRecipients,
  markBounced,
  skipIfOptedOut,
} from "~/modules/recipients/opt-outs.server";
import {
  answerUrl,
  archiveUrl,
  clickUrlBase,
  compactUnsubscribeUrl,
  openPixelUrl,
  unsubscribeMailto,
  unsubscribeUrl,
  webVersionUrl,
} from "~/modules/recipients/recipient-links.server";
import {
  db,
  prepareOnce,
  writeTransaction,
  writeTransactionWithAsyncFsync,
  writeTransactionWithoutFsync,
} from "~/platform/db.server";
import { comparableEmail } from "~/platform/email-address";
import { env } from "~/platform/env.server";
import { RuleError } from "~/platform/errors.server";
import { faultPoint } from "~/platform/fault-points.server";
import { sendEmail } from "~/platform/mailer.server";
import { storage } from "~/platform/storage.server";
import { createAcceptanceTurns } from "./acceptance-turn.server";
import { newsletterBrandingFor } from "./branding.server";
import { listIdHeader } from "./list-id.server";
import { checkStoredFiles, recordFileCheck } from "./missing-files.server";
import { type RelayAnswer, readRelayAnswer, type Verdict } from "./relay-answers.server";
import {
  type RelayGate,
  relayAnswered,
  relayGate,
  relayHoldState,
  relayRefused,
  sendRefused,
} from "./relay-hold.server";
import { claimLedger, stillHolds, whileHolding } from "./send-claim.server";
import { journalCopySent, journalSendFinished, journalSendOpened } from "./send-journal.server";
import { everyItemWaits } from "./send-now";
import { checkSendNowLimits } from "./send-now-limits.server";
import {
  EVERY_FILE_MISSING,
  NOTHING_LEFT,
  sendStatuses,
  sendUnderWayMessage,
} from "./send-status.server";

/**
 * Sending a folder, exactly once per occurrence.
 *
 * A send is a row in `send_ledger`, unique per (folder, occurrence), created
 * together with one `send_ledger_recipients` row per address. Whoever holds
 * the ledger's claim (a renewed lease: app/modules/sending/send-claim.server.ts) sends
 * to the recipients still pending and marks each one sent right after the SMTP
 * server accepts it. A restart or a second scheduler finds the same ledger
 * and only the addresses still pending. When none is pending, the items are
 * marked sent, the next send computed and the claim dropped, in one
 * transaction. Their files stay for the sent archive (ARCHIVE_FILE_RETENTION_DAYS,
 * app/modules/sending/sent-archive.server.ts). A ledger still `sending` with
 * nobody pending (a crash just before that transaction) is finished by the
 * next pass. Every state and transition:
 * docs/decisions/0049-the-send-ledgers-states.md.
 *
 * SMTP has no two-phase commit: a crash between the server's "250 OK" and our
 * write would send that one message again. Each message has a Message-ID
 * derived from the ledger's random token and the address, so the copy is
 * recognisably the same message (mail systems drop duplicates by it), and no
 * other send's, even after a restore.
 *
 * Every send is also written to the send journal beside the backups before
 * its first copy, then each copy the relay accepted and its end
 * (send-journal.server.ts): a restore from an older backup replays it and
 * sends none of it again (restored-sends.server.ts,
 * docs/decisions/0244-a-restore-knows-what-was-sent.md).
 *
 * The ledger's open and its claim are committed without waiting for the disk
 * (nothing goes out before a later, fsynced commit makes them durable too).
 * A pass sends as many ledgers at once as the thread has SMTP connections
 * (SMTP_MAX_CONNECTIONS), each message on its own pooled connection, and a
 * message's last byte waits for one of as many acceptance windows, given back
 * once its mark is fsynced (acceptanceTurns): a power cut, like a crash,
 * resends at most one message per connection. The mark's fsync runs off the
 * event loop. docs/decisions/0067-group-commit-of-the-send-ledgers-writes.md
 * and docs/decisions/0247-one-acceptance-window-per-connection.md.
 *
 * A refusal is read for what it is about (relay-answers.server.ts): only an
 * answer about the recipient bounces them. The relay refusing us holds all
 * sending, the copies untouched, until it answers again (relay-hold.server.ts);
 * the relay refusing the message makes the send's due copies wait for their
 * retry together. Either way the send stops at the first such refusal.
 *
 * A stored file gone is its item's problem: each delivery looks for its items'
 * files before building the issue (missing-files.server.ts), and an item missing
 * one stays in the folder while the rest goes.
 */
/** Transient failures: three tries after the first, about an hour in all. */
export const RETRY_DELAYS_MS = [5 * 60 * 1000, 20 * 60 * 1000, 35 * 60 * 1000];

type Ledger = SendLedger;

/**
 * Shared by every send of this thread: Send Now on the web's, the passes on the scheduler's.
 * One window per SMTP connection the thread keeps.
 */
const acceptanceTurns = createAcceptanceTurns(env.SMTP_MAX_CONNECTIONS);

export class SendRuleError extends RuleError {}

function appHost() {
  return new URL(env.APP_URL).hostname || "thoughtfully.local";
}

const byItemIds = () =>
  sql`${contentItems.id} in (select value from json_each(${sql.placeholder("itemIds")}))`;

/**
 * The reads and writes each folder of a pass makes, built and compiled once,
 * like `sentStatements` below: in a CPU profile of `npm run bench:send`,
 * drizzle building and SQLite preparing them again for every folder cost more
 * than running them. Timestamps in `sql` placeholders are epoch ms, as the
 * columns store them; item ids go in as a JSON array.
 */
const folderStatements = prepareOnce((database) => ({
  ledger: database
    .select()
    .from(sendLedger)
    .where(eq(sendLedger.id, sql.placeholder("id")))
    .prepare(),
  ledgerOfOccurrence: database
    .select()
    .from(sendLedger)
    .where(
      and(
        eq(sendLedger.folderId, sql.placeholder("folderId")),
        eq(sendLedger.occurrenceKey, sql.placeholder("key")),
      ),
    )
    .prepare(),
  folder: database
    .select()
    .from(folders)
    .where(eq(folders.id, sql.placeholder("id")))
    .prepare(),
  user: database
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder("id")))
    .prepare(),
  unsentItems: database
    .select()
    .from(contentItems)
    .where(
      and(
        eq(contentItems.folderId, sql.placeholder("folderId")),
        isNull(contentItems.sentAt),
        hasItsNote,
        isPrepared,
      ),
    )
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .prepare(),
  itemsStillUnsent: database
    .select()
    .from(contentItems)
    .where(and(byItemIds(), isNull(contentItems.sentAt)))
    .orderBy(asc(contentItems.sortOrder), asc(contentItems.id))
    .prepare(),
  dueRecipients: database
    .select()
    .from(sendLedgerRecipients)
    .where(
      and(
        eq(sendLedgerRecipients.ledgerId, sql.placeholder("ledgerId")),
        eq(sendLedgerRecipients.status, "pending"),
        or(
          isNull(sendLedgerRecipients.nextAttemptAt),
          sql`${sendLedgerRecipients.nextAttemptAt} <= ${sql.placeholder("nowMs")}`,
        ),
      ),
    )
    .orderBy(asc(sendLedgerRecipients.id))
    .prepare(),
  recipientStates: database
    .select({
      id: sendLedgerRecipients.id,
      email: sendLedgerRecipients.email,
      status: sendLedgerRecipients.status,
      kind: sendLedgerRecipients.kind,
    })
    .from(sendLedgerRecipients)
    .where(eq(sendLedgerRecipients.ledgerId, sql.placeholder("ledgerId")))
    .prepare(),
  openLedger: database
    .insert(sendLedger)
    .values({
      folderId: sql.placeholder("folderId"),
      occurrenceKey: sql.placeholder("occurrenceKey"),
      trigger: sql.placeholder("trigger"),
      status: sql.placeholder("status"),
      itemIds: sql.placeholder("itemIds"),
      completedAt: sql`${sql.placeholder("completedAtMs")}`,
      tracked: sql.placeholder("tracked"),
      issueNote: sql.placeholder("issueNote"),
      messageToken: sql.placeholder("messageToken"),
    })
    .returning()
    .prepare(),
  addRecipient: database
    .insert(sendLedgerRecipients)
    .values({
      ledgerId: sql.placeholder("ledgerId"),
      email: sql.placeholder("email"),
      kind: sql.placeholder("kind"),
    })
    .onConflictDoNothing()
    .prepare(),
  moveFolderClock: database
    .update(folders)
    .set({ nextSendAt: sql`${sql.placeholder("nextSendAtMs")}` })
    .where(eq(folders.id, sql.placeholder("id")))
    .prepare(),
  finishLedger: database
    .update(sendLedger)
    .set({
      status: sql`${sql.placeholder("status")}`,
      completedAt: sql`${sql.placeholder("completedAtMs")}`,
      claimedBy: null,
      claimedAt: null,
      leaseExpiresAt: null,
    })
    .where(eq(sendLedger.id, sql.placeholder("id")))
    .prepare(),
  markItemsSent: database
    .update(contentItems)
    .set({ sentAt: sql`${sql.placeholder("sentAtMs")}` })
    .where(and(byItemIds(), isNull(contentItems.sentAt)))
    .prepare(),
  /** Only the note the send carried: one the sender wrote meanwhile waits for the next issue. */
  clearCarriedNote: database
    .update(folders)
    .set({ issueNote: null })
    .where(
      and(
        eq(folders.id, sql.placeholder("id")),
        eq(folders.issueNote, sql.placeholder("issueNote")),
      ),
    )
    .prepare(),
  recordFolderSent: database
    .update(folders)
    .set({
      lastSentAt: sql`${sql.placeholder("sentAtMs")}`,
      nextSendAt: sql`coalesce(${sql.placeholder("nextSendAtMs")}, ${folders.nextSendAt})`,
    })
    .where(eq(folders.id, sql.placeholder("id")))
    .prepare(),
}));

/**
 * The items the next send of this folder carries: unsent and with their note
 * (an item that needs one waits in the folder: docs/decisions/0134-quick-saves-wait-for-a-note.md),
 * in the folder's order. The caller checked ownership.
 */
export function unsentItems(folderId: number) {
  return folderStatements().unsentItems.all({ folderId });
}

/**
 * The folder's newsletter, rendered and inlined once in the sender's look:
 * what a send delivers and what the Email Preview shows. Each recipient then
 * only gets their own links (`personalize`).
 */
export function buildNewsletter(
  folder: Pick<Folder, "id" | "name" | "personalSignoff">,
  sender: SessionUser,
  items: ContentItem[],
  {
    tracked = false,
    heldBack = [],
    issueNote = null,
  }: { tracked?: boolean; heldBack?: HeldBackItem[]; issueNote?: string | null } = {},
) {
  const look = newsletterBrandingFor(sender);
  return renderNewsletter(
    { folder, sender, items, branding: look?.branding, tracked, heldBack, issueNote },
    look?.headerImage,
  );
}

/**
 * The items a send leaves behind, waiting for a note, for their video to be
 * prepared or for a file found missing, for the sender's own copy to name
 * (docs/decisions/0198-waiting-items-reminder.md): the folder's unsent items
 * the send does not carry.
 */
function heldBackItems(items: ContentItem[], folder: Folder): HeldBackItem[] {
  const carried = new Set(items.map((item) => item.id));
  return itemsThatWait(folder.userId, folder.id)
    .filter((item) => !carried.has(item.id))
    .map((item) => ({
      ...item,
      editUrl: `${env.APP_URL}/folders/${folder.id}/items/${item.id}/edit`,
    }));
}

function senderOf(folder: Folder) {
  const sender = folderStatements().user.get({ id: folder.userId });
  if (!sender) throw new Error(`Folder ${folder.id} has no owner`);
  return sender;
}

/**
 * Creates the ledger for this folder and occurrence, or returns the one that
 * exists. Returns null when there is nothing to send (no items or nobody to
 * send to): the occurrence is recorded as skipped.
 */
export function openLedger(
  folderId: number,
  key: string,
  trigger: Ledger["trigger"],
  now: Date,
): Ledger | null {
  // Nothing is sent before a later commit, whose fsync makes this one durable too.
  return writeTransactionWithoutFsync(() => {
    const statements = folderStatements();
    const existing = statements.ledgerOfOccurrence.get({ folderId, key });
    if (existing) return existing.status === "sending" ? existing : null;
    const folder = statements.folder.get({ id: folderId });
    if (!folder) return null;
    const sender = senderOf(folder);
    const items = unsentItems(folder.id);
    const recipients = activeRecipients(folder);
    const status = items.length === 0 || recipients.length === 0 ? "skipped" : "sending";
    const ledger = statements.openLedger.get({
      folderId: folder.id,
      occurrenceKey: key,
      trigger,
      status,
      itemIds: items.map((item) => item.id),
      completedAtMs: status === "skipped" ? now.getTime() : null,
      // Decided once, so every copy of the send (retries included) is alike.
      tracked: isPremium(sender),
      // Taken with the items: every copy, retries too, carries the note as it was now.
      issueNote: status === "sending" ? folder.issueNote : null,
      messageToken: newMessageToken(),
    });
    if (trigger === "schedule") {
      // The occurrence is taken: the folder's clock moves on at once, so a
      // later tick never picks this occurrence again, sent or skipped.
      statements.moveFolderClock.run({
        id: folder.id,
        nextSendAtMs: nextSendAt(folder, sender.timeZone, now, folder.lastSentAt).getTime(),
      });
    }
    if (status === "skipped") {
      // Its time came with nothing ready but clips still being prepared: the sender hears of
      // it once (waiting-reminders.server.ts sends it), as their own copy would have named them.
      if (
        trigger === "schedule" &&
        recipients.length > 0 &&
        items.length === 0 &&
        videosNotPrepared(folder.userId, folder.id).length > 0
      ) {
        db.insert(waitingReminders)
          .values({
            folderId: folder.id,
            userId: folder.userId,
            occurrenceKey: key,
            kind: "video",
            createdAt: now,
          })
          .onConflictDoNothing()
          .run();
      }
      return null;
    }
    for (const recipient of recipients) {
      statements.addRecipient.run({
        ledgerId: ledger.id,
        email: comparableEmail(recipient.email),
        kind: "recipient",
      });
    }
    if (folder.ccSender) {
      statements.addRecipient.run({ ledgerId: ledger.id, email: sender.email, kind: "cc" });
    }
    return ledger;
  });
}

function messageHeaders(folder: Folder, recipient: SendLedgerRecipient) {
  const { email } = recipient;
  return {
    ...copyHeaders(recipient.id),
    "List-Unsubscribe": `<${unsubscribeUrl(folder.id, email)}>, <${unsubscribeMailto(folder.id, email)}>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "List-ID": listIdHeader(folder, appHost()),
  };
}

function messageIdFor(ledger: Ledger, email: string) {
  const hash = crypto.createHash("sha256").update(email).digest("hex").slice(0, 16);
  return `<send-${ledger.messageToken}-${hash}@${appHost()}>`;
}

function breakdownOf(items: ContentItem[]) {
  const count = (type: string) => items.filter((item) => item.type === type).length;
  return {
    links: count("link"),
    photos: count("photo"),
    files: count("file"),
    musings: count("musing"),
  };
}

/**
 * Sends to every recipient of the ledger that is due, then finishes the
 * ledger if nobody is left. Returns how many messages went out.
 */
export async function deliver(ledgerId: number, now = new Date()): Promise<number> {
  if (!claimLedger(ledgerId)) return 0;
  faultPoint("claimed");
  return whileHolding(ledgerId, async () => {
    const statements = folderStatements();
    const ledger = statements.ledger.get({ id: ledgerId })!;
    const folder = statements.folder.get({ id: ledger.folderId });
    if (!folder) return 0;
    const sender = senderOf(folder);
    const unsent = statements.itemsStillUnsent.all({ itemIds: JSON.stringify(ledger.itemIds) });
    const due = statements.dueRecipients.all({ ledgerId: ledger.id, nowMs: now.getTime() });
    let sent = 0;
    let items = unsent;
    if (unsent.length > 0 && due.length > 0) {
      // Each item's files looked for once, before the issue is built: one gone keeps its item back.
      try {
        const check = await checkStoredFiles(unsent, storage);
        recordFileCheck(ledger, check);
        items = check.carried;
      } catch (error) {
        return failThisTry({ ledger, folder, sender }, due, error, now);
      }
    }
    // Every item of the send was deleted meanwhile, or lost its files: nobody can be sent
    // anything, and a ledger waiting for that would never finish (and would hold up Send Now).
    if (items.length === 0) {
      giveUpPending(ledger.id, unsent.length > 0 ? EVERY_FILE_MISSING : NOTHING_LEFT);
    }
    if (items.length > 0 && due.length > 0) {
      const look = { tracked: ledger.tracked, issueNote: ledger.issueNote };
      const rendered = buildNewsletter(folder, sender, items, look);
      // The sender's copy names what stayed behind; rendered only when it differs.
      const heldBack = due.some((recipient) => recipient.kind === "cc")
        ? heldBackItems(items, folder)
        : [];
      const senderCopy =
        heldBack.length > 0
          ? buildNewsletter(folder, sender, items, { ...look, heldBack })
          : rendered;
      const prepared = {
        ledger,
        folder,
        sender,
        items,
        rendered,
        senderCopy,
        attachments: [] as Attachment[],
      };
      try {
        prepared.attachments = await attachmentsFor(rendered, storage);
      } catch (error) {
        return failThisTry(prepared, due, error, now);
      }
      // On disk before the first copy: a restore must know this send to mark its copies.
      await journalSendOpened(ledger, statements.recipientStates.all({ ledgerId }), now);
      for (const recipient of due) {
        // A holder that stalled past its lease may have been replaced: the new one sends the rest.
        if (!stillHolds(ledger.id)) return sent;
        // The relay refuses us: this send's copies wait, untouched, for it to answer again.
        const gate = relayGate(now);
        if (gate.state === "held") break;
        const outcome = await sendOne(prepared, recipient, gate, now);
        if (outcome === "sent") sent += 1;
        // One refusal of the relay or of the message is the answer for every copy after it.
        if (outcome === "relay" || outcome === "message") break;
      }
    }
    faultPoint("before-finish");
    await finishIfDone(ledger.id, now);
    faultPoint("before-release");
    return sent;
  });
}

/**
 * The storage did not answer (a bucket down), or a file went between the check and its read:
 * this try fails for every copy due, and their retries follow. Returns the messages sent: none.
 */
async function failThisTry(
  send: Pick<PreparedSend, "ledger" | "folder" | "sender">,
  due: SendLedgerRecipient[],
  error: unknown,
  now: Date,
) {
  const answer = readRelayAnswer(error);
  for (const recipient of due) recordFailure(send, recipient, answer, OPEN, now);
  await finishIfDone(send.ledger.id, now);
  return 0;
}

/** What every recipient's copy of one send shares: rendered and read once. */
type PreparedSend = {
  ledger: Ledger;
  folder: Folder;
  sender: User;
  items: ContentItem[];
  rendered: RenderedNewsletter;
  /** The cc copy's bodies: `rendered`, plus the items that stayed behind when there are any. */
  senderCopy: RenderedNewsletter;
  attachments: Attachment[];
};

/**
 * The three writes after each accepted message, prepared once: a pass makes
 * them for every recipient, and building and preparing them each time cost
 * more than running them (`npm run bench:send`). An insert's placeholders go
 * through their column's mapping (Dates, objects); an update's, which must sit
 * inside sql``, do not: `sentAtMs` is epoch ms, as the column stores it.
 */
const sentStatements = prepareOnce((database) => ({
  markSent: database
    .update(sendLedgerRecipients)
    .set({
      status: "sent",
      attempts: sql`${sql.placeholder("attempts")}`,
      sentAt: sql`${sql.placeholder("sentAtMs")}`,
      messageId: sql`${sql.placeholder("messageId")}`,
      lastError: null,
    })
    .where(eq(sendLedgerRecipients.id, sql.placeholder("id")))
    .prepare(),
  recordAttempt: database
    .insert(emailAttempts)
    .values({
      userId: sql.placeholder("userId"),
      folderId: sql.placeholder("folderId"),
      attemptType: sql.placeholder("attemptType"),
      attemptedAt: sql.placeholder("attemptedAt"),
    })
    .prepare(),
  recordDelivery: database
    .insert(emailDeliveries)
    .values({
      folderId: sql.placeholder("folderId"),
      ledgerId: sql.placeholder("ledgerId"),
      recipientEmail: sql.placeholder("recipientEmail"),
      sentAt: sql.placeholder("sentAt"),
      itemCount: sql.placeholder("itemCount"),
      emailSizeBytes: sql.placeholder("emailSizeBytes"),
      contentBreakdown: sql.placeholder("contentBreakdown"),
    })
    .prepare(),
}));

/** What became of one copy: sent, skipped (the recipient left), or the verdict on its refusal. */
type CopyOutcome = "sent" | "skipped" | Verdict;

const OPEN: RelayGate = { state: "open" };

async function sendOne(
  prepared: PreparedSend,
  recipient: SendLedgerRecipient,
  gate: RelayGate,
  now: Date,
): Promise<CopyOutcome> {
  const { ledger, folder, sender, items, attachments } = prepared;
  if (recipient.kind === "recipient" && skipIfOptedOut(folder.id, recipient)) return "skipped";
  const rendered = recipient.kind === "cc" ? prepared.senderCopy : prepared.rendered;
  const { html, text } = personalize(rendered, {
    email: recipient.email,
    unsubscribeUrl: compactUnsubscribeUrl(folder.id, recipient.email),
    webVersionUrl: webVersionUrl(ledger.id, recipient.email),
    // The sender's own copy opens their Sent page: the archive is the recipients'.
    archiveUrl:
      recipient.kind === "cc"
        ? `${env.APP_URL}/folders/${folder.id}/sent`
        : archiveUrl(folder.id, recipient.email),
    // The copy's own row: a cc copy's links open the page that says it is the sender's own
    // (docs/decisions/0162-answer-links-in-the-newsletter.md).
    answerUrlFor: (itemId) => answerUrl(recipient.id, itemId),
    ...(ledger.tracked
      ? {
          openPixelUrl: openPixelUrl(ledger.id, recipient.email),
          clickUrlBase: clickUrlBase(ledger.id, recipient.email),
        }
      : {}),
  });
  const senderName = [sender.firstName, sender.lastName].filter(Boolean).join(" ") || sender.email;
  const attempts = recipient.attempts + 1;
  const turn = acceptanceTurns.turn();
  try {
    faultPoint("before-smtp");
    const { messageId } = await sendEmail({
      to: recipient.email,
      subject: recipient.kind === "cc" ? `[Copy] ${rendered.subject}` : rendered.subject,
      html,
      text,
      replyTo: sender.email,
      fromName: `${senderName} via Thoughtfully`,
      headers: messageHeaders(folder, recipient),
      returnPath: returnPathFor(recipient.id) ?? undefined,
      attachments,
      messageId: messageIdFor(ledger, recipient.email),
      waitBeforeEnd: turn.take,
      textEncoding: rendered.textEncoding,
    });
    faultPoint("smtp-accepted");
    // Written now, its fsync beside the mark's; the turn waits for both.
    const journaled = journalCopySent(ledger, recipient, messageId, now);
    await writeTransactionWithAsyncFsync(() => {
      const statements = sentStatements();
      statements.markSent.run({ id: recipient.id, attempts, sentAtMs: now.getTime(), messageId });
      statements.recordAttempt.run({
        userId: sender.id,
        folderId: folder.id,
        attemptType: ledger.trigger,
        attemptedAt: now,
      });
      statements.recordDelivery.run({
        folderId: folder.id,
        ledgerId: ledger.id,
        recipientEmail: recipient.email,
        sentAt: now,
        itemCount: items.length,
        emailSizeBytes: rendered.totalBytes,
        contentBreakdown: breakdownOf(items),
      });
    });
    await journaled;
    faultPoint("recipient-recorded");
    if (gate.state !== "open") relayAnswered(now);
    return "sent";
  } catch (error) {
    const verdict = recordFailure(prepared, recipient, readRelayAnswer(error), gate, now);
    // An answer about the recipient or the message got past us: a hold's try ends it.
    if (gate.state !== "open" && (verdict === "bounce" || verdict === "message")) {
      relayAnswered(now);
    }
    return verdict;
  } finally {
    turn.giveBack();
  }
}

function giveUpPending(ledgerId: number, why: string) {
  db.update(sendLedgerRecipients)
    .set({ status: "failed", nextAttemptAt: null, lastError: why })
    .where(
      and(eq(sendLedgerRecipients.ledgerId, ledgerId), eq(sendLedgerRecipients.status, "pending")),
    )
    .run();
}

/** When a copy tried `attempts` times goes again: null once it has had its tries. */
function retryAfter(attempts: number, now: Date) {
  return attempts > RETRY_DELAYS_MS.length
    ? null
    : new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]!);
}

/**
 * A copy the relay did not take, read for what the answer is about (relay-answers.server.ts):
 * - bounce: the recipient is marked bounced, and the mailbox suppressed for every sender;
 * - retry: the copy waits for its retry (three in all), then fails;
 * - message: every copy of the send now due waits with it, each a try (the same message
 *   would meet the same refusal), then fails; nobody is bounced;
 * - relay: sending is held (relay-hold.server.ts); the copy waits untouched, unless the
 *   refusal came at its RCPT TO, where it is one of its tries.
 */
function recordFailure(
  { ledger, folder, sender }: Pick<PreparedSend, "ledger" | "folder" | "sender">,
  recipient: SendLedgerRecipient,
  answer: RelayAnswer,
  gate: RelayGate,
  now: Date,
) {
  const { verdict } = answer;
  const message = answer.words;
  const bounced = verdict === "bounce";
  writeTransaction((tx) => {
    // The copies this refusal is a try of: the whole send's due copies for its message.
    const tried =
      verdict === "message"
        ? tx
            .select()
            .from(sendLedgerRecipients)
            .where(
              and(
                eq(sendLedgerRecipients.ledgerId, ledger.id),
                eq(sendLedgerRecipients.status, "pending"),
                or(
                  isNull(sendLedgerRecipients.nextAttemptAt),
                  lte(sendLedgerRecipients.nextAttemptAt, now),
                ),
              ),
            )
            .all()
        : answer.countsAsTry
          ? [recipient]
          : [];
    for (const copy of tried) {
      const attempts = copy.attempts + 1;
      const retryAt = bounced ? null : retryAfter(attempts, now);
      tx.update(sendLedgerRecipients)
        .set({
          attempts,
          lastError: message,
          status: bounced ? "bounced" : retryAt ? "pending" : "failed",
          nextAttemptAt: retryAt,
        })
        .where(eq(sendLedgerRecipients.id, copy.id))
        .run();
    }
    tx.insert(emailAttempts)
      .values({
        userId: sender.id,
        folderId: folder.id,
        attemptType: ledger.trigger,
        attemptedAt: now,
        errorType: bounced ? "permanent" : verdict === "retry" ? "transient" : verdict,
      })
      .run();
  });
  switch (verdict) {
    case "relay":
      relayRefused(answer, gate, now);
      break;
    case "message":
      sendRefused(
        { ledgerId: ledger.id, folderId: folder.id },
        answer,
        retryAfter(recipient.attempts + 1, now),
        now,
      );
      break;
    default:
      if (bounced && recipient.kind === "recipient") {
        markBounced(folder.id, recipient.email, message);
        // The same rule as a relay's later report: the mailbox is suppressed for every sender.
        recordDeliveryReport({
          source: "smtp",
          sourceEventId: String(recipient.id),
          ledgerRecipientId: recipient.id,
          kind: "hard_bounce",
          detail: message,
          occurredAt: now,
        });
      }
      console.error(`[send] folder ${folder.id} to ${recipient.email} failed: ${message}`);
  }
  return verdict;
}

/**
 * Once no recipient is pending: the items leave the folder (marked sent; they
 * and their files are now the sent archive's), the folder records the send and
 * its next one (and resumes if it was paused for its size), and the ledger,
 * finished, drops its claim, all in one transaction; then the send journal
 * records its end.
 */
async function finishIfDone(ledgerId: number, now: Date) {
  // Not fsynced: a finish a power cut loses leaves a ledger with nobody
  // pending, which the next pass finishes again (resumableLedgerIds); the
  // next "sent" mark's fsync makes it durable meanwhile.
  const finished = writeTransactionWithoutFsync(() => finishLedgerIfDone(ledgerId, now));
  if (!finished) return;
  // Written at once, its fsync not waited for: nothing else waits on it, and an end a power cut
  // loses only leaves the send under way after a restore (docs/decisions/0244-a-restore-knows-what-was-sent.md).
  void journalSendFinished(finished.ledger, finished.status, finished.recipients, now);
  if (finished.status === "sent") faultPoint("finished");
}

/**
 * `finishIfDone`'s transaction, for a caller already in one (a restore's
 * replay: restored-sends.server.ts): what the finish decided, or null when
 * the ledger is not sending or someone is still pending.
 */
export function finishLedgerIfDone(ledgerId: number, now: Date) {
  const statements = folderStatements();
  const ledger = statements.ledger.get({ id: ledgerId });
  if (ledger?.status !== "sending") return null;
  const recipients = statements.recipientStates.all({ ledgerId });
  if (recipients.some((recipient) => recipient.status === "pending")) return null;
  const delivered = recipients.some(
    (recipient) => recipient.status === "sent" && recipient.kind === "recipient",
  );
  const status = delivered ? "sent" : "failed";
  statements.finishLedger.run({ id: ledgerId, status, completedAtMs: now.getTime() });
  if (delivered) {
    statements.markItemsSent.run({
      itemIds: JSON.stringify(ledger.itemIds),
      sentAtMs: now.getTime(),
    });
    if (ledger.issueNote !== null) {
      statements.clearCarriedNote.run({ id: ledger.folderId, issueNote: ledger.issueNote });
    }
    const folder = statements.folder.get({ id: ledger.folderId })!;
    const sender = senderOf(folder);
    statements.recordFolderSent.run({
      id: folder.id,
      sentAtMs: now.getTime(),
      nextSendAtMs:
        ledger.trigger === "send_now"
          ? nextSendAt(folder, sender.timeZone, now, now).getTime()
          : null,
    });
    reconcileStoragePause(folder.id);
  }
  return { ledger, status, recipients } as const;
}

/**
 * Folders whose time has come: not paused, not unsubscribed, sender verified, and no send of
 * theirs still under way. That one's items are not sent yet, so a second send would carry them
 * again; the folder waits, its clock unmoved, and its next send opens once the first is done
 * (a copy's retries last an hour, a relay's hold as long as the relay refuses us).
 */
function dueFolderIds(now: Date) {
  return db
    .select({ id: folders.id, nextSendAt: folders.nextSendAt, userId: folders.userId })
    .from(folders)
    .innerJoin(users, eq(users.id, folders.userId))
    .where(
      and(
        lte(folders.nextSendAt, now),
        eq(folders.isPaused, false),
        eq(folders.isUnsubscribed, false),
        eq(users.emailVerified, true),
        not(
          exists(
            db
              .select({ one: sql`1` })
              .from(sendLedger)
              .where(and(eq(sendLedger.folderId, folders.id), eq(sendLedger.status, "sending"))),
          ),
        ),
      ),
    )
    .orderBy(asc(folders.nextSendAt))
    .all();
}

/**
 * Ledgers still sending with someone due, or with nobody pending at all (a
 * crash between the last recipient and the finish): claimLedger decides who
 * may take them.
 */
function resumableLedgerIds(now: Date) {
  const recipientsOf = (...conditions: SQL[]) =>
    db
      .select({ one: sql`1` })
      .from(sendLedgerRecipients)
      .where(and(eq(sendLedgerRecipients.ledgerId, sendLedger.id), ...conditions));
  const pending = eq(sendLedgerRecipients.status, "pending");
  return db
    .select({ id: sendLedger.id, userId: folders.userId })
    .from(sendLedger)
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(
      and(
        eq(sendLedger.status, "sending"),
        or(
          exists(
            recipientsOf(
              pending,
              or(
                isNull(sendLedgerRecipients.nextAttemptAt),
                lte(sendLedgerRecipients.nextAttemptAt, now),
              )!,
            ),
          ),
          not(exists(recipientsOf(pending))),
        ),
      ),
    )
    .orderBy(asc(sendLedger.id))
    .all();
}

/**
 * Whether each sender may send now: judged once per pass, before any of their
 * folders (docs/decisions/0125-paused-senders-sends-are-held.md). A paused
 * sender's due folders are left as they are, clock unmoved, and their open
 * ledgers keep their pending copies: lifting the pause sends what was held,
 * once, on the next pass.
 */
function senderCheck(now: Date) {
  const verdicts = new Map<number, boolean>();
  return (userId: number) => {
    let maySend = verdicts.get(userId);
    if (maySend === undefined) {
      maySend = !reviewSenderReputation(userId, now).paused;
      verdicts.set(userId, maySend);
    }
    return maySend;
  };
}

export type PassResult = { opened: number; messages: number };

/**
 * Ledgers a pass delivers at once, each one message at a time on a pooled
 * connection: one for each of the thread's connections and acceptance
 * windows, so every connection has a message and no window waits for a
 * connection. Each ledger under way holds its rendered newsletter and files in
 * memory, so this also bounds a pass's memory.
 */
const LEDGERS_AT_ONCE = env.SMTP_MAX_CONNECTIONS;

/** Folders opened per commit: short enough for the web requests waiting (docs/decisions/0067-group-commit-of-the-send-ledgers-writes.md). */
const OPEN_BATCH = 20;

/**
 * And no more once a commit has held the write lock this long, with as long
 * again between commits: a web request's write waits only REQUEST_LOCK_WAIT_MS
 * for the lock before its 503 (docs/decisions/0246-a-busy-database-is-a-503-quickly.md).
 */
const OPEN_HOLD_MS = 10;

/**
 * One scheduler pass: opens the ledger of every due folder (an empty folder's
 * occurrence is skipped and its clock moves on), then delivers every ledger
 * with someone due, including sends a crashed process left half done.
 */
export async function runSchedulerPass(now = new Date()): Promise<PassResult> {
  // The relay refuses us: nothing is opened or sent until the hold's next try
  // (relay-hold.server.ts); the due folders keep their clocks, as a paused sender's do.
  if (relayHoldState(now) === "held") return { opened: 0, messages: 0 };
  let opened = 0;
  const maySend = senderCheck(now);
  const due = dueFolderIds(now).filter((folder) => maySend(folder.userId));
  for (let start = 0; start < due.length; ) {
    // One commit for a batch of folders: each commit costs more than opening a ledger.
    const openedNow = writeTransactionWithoutFsync(() => {
      const began = performance.now();
      let count = 0;
      for (const folder of due.slice(start, start + OPEN_BATCH)) {
        start++;
        if (
          folder.nextSendAt &&
          openLedger(folder.id, occurrenceKey(folder.nextSendAt), "schedule", now)
        ) {
          count++;
        }
        if (performance.now() - began >= OPEN_HOLD_MS) break;
      }
      return count;
    });
    opened += openedNow;
    if (openedNow > 0) faultPoint("ledger-opened");
    // Room between commits as long as one: SQLite lets a waiting writer in only when it
    // looks again (after 1, 2, 5, 10, 15 ms), and commits back to back would starve the
    // web's writes past their wait.
    await new Promise((resolve) => setTimeout(resolve, OPEN_HOLD_MS));
  }
  let messages = 0;
  const ledgerIds = resumableLedgerIds(now)
    .filter((ledger) => maySend(ledger.userId))
    .map((ledger) => ledger.id);
  let next = 0;
  const deliverNext = async () => {
    const ledgerId = ledgerIds[next++]!;
    try {
      // Not `messages += await …`: that would read `messages` before the wait and lose other senders' counts.
      const sent = await deliver(ledgerId, now);
      messages += sent;
    } catch (error) {
      // One broken send must not hold up every other folder's.
      console.error(`[scheduler] send ${ledgerId} failed`, error);
    }
  };
  // A hold's try goes first, alone: the other sends wait for its answer in this pass, and
  // stop when the relay refuses us again.
  while (next < ledgerIds.length && relayHoldState(now) === "due") await deliverNext();
  const sendInTurn = async () => {
    while (next < ledgerIds.length && relayHoldState(now) !== "held") await deliverNext();
  };
  await Promise.all(Array.from({ length: LEDGERS_AT_ONCE }, sendInTurn));
  return { opened, messages };
}

/** Send Now's refusal to a paused sender, with the pause's explanation. */
function sendingPausedMessage(userId: number) {
  const reason = db
    .select({ reason: users.sendingPausedReason })
    .from(users)
    .where(eq(users.id, userId))
    .get()?.reason;
  return `Your sending is paused${reason ? `: ${reason}` : "."} An admin has been told and will look into it.`;
}

/**
 * Send Now (docs/product-rules.md, Folders and items: disabled with no items, when unsubscribed, or with any
 * pause reason; needs a verified sender; limited for the recipients' sake by
 * send-now-limits.server.ts, checked last so a refused send never counts). A send
 * already under way for the folder refuses a second one, so a double click sends once.
 */
export async function sendNow(userId: number, folderId: number, now = new Date()) {
  if (reviewSenderReputation(userId, now).paused)
    throw new SendRuleError(sendingPausedMessage(userId));
  const ledger = writeTransaction(() => {
    const folder = db
      .select()
      .from(folders)
      .where(and(eq(folders.id, folderId), eq(folders.userId, userId)))
      .get();
    if (!folder) return null;
    const sender = senderOf(folder);
    if (!sender.emailVerified) {
      throw new SendRuleError("Please confirm your email address before sending.");
    }
    if (folder.isUnsubscribed) throw new SendRuleError("Every recipient has unsubscribed.");
    if (folder.isPaused || folder.pauseReason) {
      throw new SendRuleError("This folder is paused. Resume delivery to send it.");
    }
    const busy = db
      .select({ id: sendLedger.id })
      .from(sendLedger)
      .where(and(eq(sendLedger.folderId, folderId), eq(sendLedger.status, "sending")))
      .get();
    // What the send under way waits for, not only that there is one.
    if (busy) {
      throw new SendRuleError(
        sendUnderWayMessage(sendStatuses(userId, sender.timeZone, now).get(folderId)),
      );
    }
    const itemCount = db
      .select({ n: sql<number>`count(*)` })
      .from(contentItems)
      .where(and(eq(contentItems.folderId, folderId), isNull(contentItems.sentAt)))
      .get();
    if (!itemCount?.n) {
      throw new SendRuleError(
        "Failed to send folder. Please check that your folder has content and try again.",
      );
    }
    if (unsentItems(folderId).length === 0) {
      const waiting = itemsThatWait(userId, folderId).map((item) => item.waitingFor);
      throw new SendRuleError(everyItemWaits(waiting));
    }
    checkSendNowLimits(
      userId,
      activeRecipients(folder, now).map((recipient) => recipient.email),
      now,
    );
    const opened = openLedger(folderId, `send-now:${now.toISOString()}`, "send_now", now);
    if (!opened) throw new SendRuleError("Nobody to send to: every recipient has unsubscribed.");
    return opened;
  });
  if (!ledger) return null;
  faultPoint("ledger-opened");
  const messages = await deliver(ledger.id, now);
  // Nothing went (every item's file missing, every address bounced): say why, not "on its way".
  if (folderStatements().ledger.get({ id: ledger.id })?.status === "failed") {
    const { timeZone } = folderStatements().user.get({ id: userId })!;
    const status = sendStatuses(userId, timeZone, now).get(folderId);
    throw new SendRuleError(
      status?.state === "failed" ? `${status.why} ${status.todo}` : "Nothing could be sent.",
    );
  }
  const states = db
    .select({ status: sendLedgerRecipients.status })
    .from(sendLedgerRecipients)
    .where(eq(sendLedgerRecipients.ledgerId, ledger.id))
    .all();
  return { messages, pending: states.filter((state) => state.status === "pending").length };
}
