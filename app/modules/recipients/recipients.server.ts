import { and, desc, eq, gt, inArray, or, sql } from "drizzle-orm";
import { createElement } from "react";
import {
  emailUnsubscribes,
  folderRecipientStates,
  folders,
  mailboxSuppressions,
  resubscribeRefusals,
  resubscribeRequests,
  users,
} from "#db/schema";
import type { Transaction } from "#db/types";
import { KeepGetting, keepGettingSubject } from "#emails/keep-getting";
import { renderEmail } from "#emails/render.server";
import { ResubscribeRequest, resubscribeRequestSubject } from "#emails/resubscribe-request";
import { type Folder, getFolder, recipientsOf } from "~/modules/folders/folders.server";
import { formatDay } from "~/platform/dates";
import { db, prepareSqlOnce, writeTransaction } from "~/platform/db.server";
import { comparableEmail, comparableMailbox } from "~/platform/email-address";
import { RuleError } from "~/platform/errors.server";
import { sendEmail } from "~/platform/mailer.server";
import { mayBeSpellingOf } from "./addresses.server";
import type { MissedRecipient } from "./next-issue-line";
import { dontAskAgainUrl, resubscribeUrl } from "./recipient-links.server";
import {
  type RecipientState,
  stateRow,
  statesOf,
  statusRank,
  writeState,
} from "./recipient-states.server";

/**
 * What the sender sees of their recipients and may ask of them: each one's
 * state, who the next issue reaches, and a request to come back after an
 * opt-out or a bounce. Who takes no mail is ./opt-outs.server.ts.
 */
export const RESUBSCRIBE_REQUEST_INTERVAL_MS = 30 * 24 * 60 * 60 * 1000;
/** Requests one address may get from all senders together per 30 days (docs/decisions/0043-re-subscribe-requests.md). */
export const RESUBSCRIBE_REQUESTS_PER_ADDRESS = 3;

/** A rule the caller broke; its message is meant for the sender. */
export class RecipientRuleError extends RuleError {}

const lower = comparableEmail;
const mailboxOf = comparableMailbox;

/** Every recipient of the folder with their status, for the sender's Recipients dialog. */
export function recipientStates(folderId: number): RecipientState[] {
  const folder = db.select().from(folders).where(eq(folders.id, folderId)).get();
  return folder ? statesOf(db, folder) : [];
}

const unsubscribedInFoldersQuery = prepareSqlOnce<{ folderId: number; mailbox: string }>(sql`
  select ${folderRecipientStates.folderId} as folderId, ${folderRecipientStates.mailbox} as mailbox
    from ${folderRecipientStates}
   where ${folderRecipientStates.folderId} in (select value from json_each(${sql.placeholder("folderIds")}))
     and ${folderRecipientStates.status} = 'unsubscribed'`);

const leftEverythingQuery = prepareSqlOnce<{ mailbox: string }>(sql`
  select ${emailUnsubscribes.mailbox} as mailbox from ${emailUnsubscribes}
   where ${emailUnsubscribes.mailbox} in (select value from json_each(${sql.placeholder("mailboxes")}))`);

/**
 * For each of the given folders (one sender's), how many of its recipients
 * are unsubscribed (from the folder or from everything): two queries for all
 * folders together. Folders with none are left out.
 */
export function unsubscribedCounts(senderFolders: Folder[]): Map<number, number> {
  // Each listed address once per folder (stored canonical: lower case is enough), as its mailbox.
  const listed = senderFolders.map((folder) => ({
    id: folder.id,
    mailboxes: [
      ...new Set(recipientsOf(folder).map((recipient) => recipient.email.trim().toLowerCase())),
    ].map(mailboxOf),
  }));
  const mailboxes = [...new Set(listed.flatMap((folder) => folder.mailboxes))];
  if (mailboxes.length === 0) return new Map();
  const everything = new Set(
    leftEverythingQuery.all({ mailboxes: JSON.stringify(mailboxes) }).map((row) => row.mailbox),
  );
  const leftFolder = new Set(
    unsubscribedInFoldersQuery
      .all({ folderIds: JSON.stringify(listed.map((folder) => folder.id)) })
      .map((row) => `${row.folderId} ${row.mailbox}`),
  );
  const counts = new Map<number, number>();
  for (const folder of listed) {
    const count = folder.mailboxes.filter(
      (mailbox) => everything.has(mailbox) || leftFolder.has(`${folder.id} ${mailbox}`),
    ).length;
    if (count > 0) counts.set(folder.id, count);
  }
  return counts;
}

function senderNameOf(user: { firstName: string | null; lastName: string | null; email: string }) {
  return [user.firstName, user.lastName].filter(Boolean).join(" ").trim() || user.email;
}

/** The sender's name and the folder's name, for the recipient's pages. */
export function folderForRecipient(folderId: number) {
  const row = db
    .select({
      id: folders.id,
      name: folders.name,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
    })
    .from(folders)
    .innerJoin(users, eq(users.id, folders.userId))
    .where(eq(folders.id, folderId))
    .get();
  return row ? { folderId: row.id, folderName: row.name, senderName: senderNameOf(row) } : null;
}

/**
 * After a bounce, the sender may ask once whether the recipient would like to
 * keep getting the folder (docs/decisions/0211-one-way-back-after-a-bounce.md):
 * only a mailbox that bounced (in this folder, or suppressed after a bounce),
 * never one that complained or left. Throws RecipientRuleError otherwise.
 */
function refuseAskingAfterBounce(
  tx: Transaction,
  state: RecipientState | undefined,
  shown: string,
  mailbox: string,
) {
  const suppression = tx
    .select({ reason: mailboxSuppressions.reason })
    .from(mailboxSuppressions)
    .where(eq(mailboxSuppressions.mailbox, mailbox))
    .get();
  if (suppression?.reason === "complaint") {
    throw new RecipientRuleError(
      `${shown} reported mail as spam: Thoughtfully never asks again after a complaint.`,
    );
  }
  if (state?.status === "unsubscribed") {
    throw new RecipientRuleError(`${shown} unsubscribed: request a re-subscription instead.`);
  }
  if (state?.status !== "bounced" && !suppression) {
    throw new RecipientRuleError(`Mail to ${shown} has not bounced.`);
  }
}

/** The listed addresses the sender may ask after a bounce (the Recipients dialog's buttons). */
export function askableAfterBounce(folderId: number): Set<string> {
  const folder = db.select().from(folders).where(eq(folders.id, folderId)).get();
  if (!folder) return new Set();
  const [reach] = nextIssueReach([folder]).values();
  return new Set(
    (reach?.missing ?? [])
      .filter((recipient) => recipient.because === "bounced")
      .map((recipient) => recipient.email),
  );
}

/**
 * The sender asks an unsubscribed recipient back: one e-mail with a signed
 * /resubscribe link. Only a verified sender may ask; at most once per 30 days
 * per sender and address, RESUBSCRIBE_REQUESTS_PER_ADDRESS per 30 days per
 * address from all senders, and never an address that said "don't ask me again".
 * Throws FolderNotFoundError for a folder that is not the user's and
 * RecipientRuleError (message for the sender) when the rules say no. When the
 * e-mail cannot be sent the request is not counted.
 */
export async function requestResubscription(
  userId: number,
  folderId: number,
  email: string,
  after: "unsubscribe" | "bounce" = "unsubscribe",
) {
  const folder = getFolder(userId, folderId);
  const address = lower(email);
  const mailbox = mailboxOf(address);
  const recipient = recipientsOf(folder).find((entry) => lower(entry.email) === address);
  if (!recipient) throw new RecipientRuleError(`${email} is not a recipient of this folder.`);
  const sender = db.select().from(users).where(eq(users.id, userId)).get()!;
  if (!sender.emailVerified) {
    throw new RecipientRuleError(
      "Please confirm your email address before asking anyone to re-subscribe.",
    );
  }
  const now = new Date();
  const windowStart = new Date(now.getTime() - RESUBSCRIBE_REQUEST_INTERVAL_MS);
  const { previous, requestId } = writeTransaction((tx) => {
    const state = statesOf(tx, folder).find((entry) => entry.email === address);
    if (after === "bounce") {
      refuseAskingAfterBounce(tx, state, recipient.email, mailbox);
    } else if (state?.status !== "unsubscribed") {
      throw new RecipientRuleError(`${recipient.email} has not unsubscribed from this folder.`);
    }
    // Refusals and requests count per mailbox: another spelling asks the same person.
    const refused = tx
      .select({ email: resubscribeRefusals.email })
      .from(resubscribeRefusals)
      .where(mayBeSpellingOf(resubscribeRefusals.email, mailbox))
      .all()
      .some((row) => mailboxOf(row.email) === mailbox);
    if (refused) {
      throw new RecipientRuleError(`${recipient.email} has asked not to be asked again.`);
    }
    const recentForMailbox = tx
      .select({
        senderUserId: resubscribeRequests.senderUserId,
        email: resubscribeRequests.email,
        requestedAt: resubscribeRequests.requestedAt,
      })
      .from(resubscribeRequests)
      .where(
        and(
          mayBeSpellingOf(resubscribeRequests.email, mailbox),
          gt(resubscribeRequests.requestedAt, windowStart),
        ),
      )
      .orderBy(desc(resubscribeRequests.requestedAt))
      .all()
      .filter((row) => mailboxOf(row.email) === mailbox);
    // Per sender and mailbox, in a record that outlives folders: recreating one resets nothing.
    const last = recentForMailbox.find((row) => row.senderUserId === userId)?.requestedAt;
    if (last) {
      const next = new Date(last.getTime() + RESUBSCRIBE_REQUEST_INTERVAL_MS);
      throw new RecipientRuleError(
        `You already asked ${recipient.email} to re-subscribe on ${formatDay(last, sender.timeZone)}. You can ask once every 30 days: next on ${formatDay(next, sender.timeZone)}.`,
      );
    }
    if (recentForMailbox.length >= RESUBSCRIBE_REQUESTS_PER_ADDRESS) {
      throw new RecipientRuleError(
        `${recipient.email} has been asked to re-subscribe several times recently. Please try again next month.`,
      );
    }
    const request = tx
      .insert(resubscribeRequests)
      .values({ senderUserId: userId, email: address, folderId: folder.id, requestedAt: now })
      .returning({ id: resubscribeRequests.id })
      .get();
    const existing = stateRow(tx, folder.id, address);
    writeState(tx, folder.id, address, {
      resubscribeRequestedAt: now,
      // Only unsubscribed from everything so far: the folder row records the request.
      // A bounced mailbox stays bounced: only its own "Keep getting it" starts mail again.
      ...(existing?.status === "unsubscribed" || after === "bounce"
        ? {}
        : {
            status: "unsubscribed" as const,
            unsubscribedAt: state?.unsubscribedAt ?? null,
            unsubscribeReason: "unknown",
          }),
    });
    return { previous: state?.resubscribeRequestedAt ?? null, requestId: request.id };
  });
  const senderName = senderNameOf(sender);
  const content = {
    senderName,
    senderEmail: sender.email,
    folderName: folder.name,
    resubscribeUrl: resubscribeUrl(address, folder.id),
    dontAskAgainUrl: dontAskAgainUrl(address),
  };
  const { html, text } = renderEmail(
    after === "bounce"
      ? createElement(KeepGetting, content)
      : createElement(ResubscribeRequest, content),
  );
  try {
    await sendEmail({
      to: address,
      subject:
        after === "bounce"
          ? keepGettingSubject(folder.name)
          : resubscribeRequestSubject(senderName, folder.name),
      html,
      text,
      replyTo: sender.email,
    });
  } catch (error) {
    writeTransaction((tx) => {
      writeState(tx, folder.id, address, { resubscribeRequestedAt: previous });
      tx.delete(resubscribeRequests).where(eq(resubscribeRequests.id, requestId)).run();
    });
    throw error;
  }
}

export type NextIssueReach = {
  listed: number;
  /** How many will get the next issue. */
  reaching: number;
  missing: MissedRecipient[];
};

/**
 * For each of one sender's folders, who of its listed recipients will get
 * the next issue, and why the others will not
 * (docs/decisions/0210-counts-that-are-true.md): an opt-out (this folder or
 * everything), a complaint, or a bounce (in this folder, or a suppression
 * after a bounce anywhere). Three queries for all folders together, as the
 * send's own check reads them (`activeRecipients`).
 */
export function nextIssueReach(senderFolders: Folder[], now = new Date()) {
  const listed = senderFolders.map((folder) => ({ folder, recipients: recipientsOf(folder) }));
  const mailboxes = [
    ...new Set(
      listed.flatMap(({ recipients }) => recipients.map((entry) => mailboxOf(entry.email))),
    ),
  ];
  const folderIds = senderFolders.map((folder) => folder.id);
  const states = new Map(
    (folderIds.length === 0
      ? []
      : db
          .select()
          .from(folderRecipientStates)
          .where(
            and(
              inArray(folderRecipientStates.folderId, folderIds),
              inArray(folderRecipientStates.status, ["unsubscribed", "bounced"]),
            ),
          )
          .orderBy(statusRank)
          .all()
    ).map((row) => [`${row.folderId} ${row.mailbox}`, row.status]),
  );
  const everything = new Set(
    mailboxes.length === 0
      ? []
      : leftEverythingQuery.all({ mailboxes: JSON.stringify(mailboxes) }).map((row) => row.mailbox),
  );
  const suppressed = new Map(
    (mailboxes.length === 0
      ? []
      : db
          .select()
          .from(mailboxSuppressions)
          .where(
            and(
              inArray(mailboxSuppressions.mailbox, mailboxes),
              or(
                sql`${mailboxSuppressions.suppressedUntil} is null`,
                gt(mailboxSuppressions.suppressedUntil, now),
              ),
            ),
          )
          .all()
    ).map((row) => [row.mailbox, row.reason]),
  );
  const reach = new Map<number, NextIssueReach>();
  for (const { folder, recipients } of listed) {
    const missing: NextIssueReach["missing"] = [];
    for (const recipient of recipients) {
      const mailbox = mailboxOf(recipient.email);
      const state = states.get(`${folder.id} ${mailbox}`);
      const suppression = suppressed.get(mailbox);
      const because: MissedRecipient["because"] | null =
        state === "unsubscribed" || everything.has(mailbox)
          ? "unsubscribed"
          : suppression === "complaint"
            ? "complaint"
            : state === "bounced" || suppression
              ? "bounced"
              : null;
      if (because) missing.push({ name: recipient.name, email: lower(recipient.email), because });
    }
    reach.set(folder.id, {
      listed: recipients.length,
      reaching: recipients.length - missing.length,
      missing,
    });
  }
  return reach;
}
