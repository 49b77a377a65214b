import { and, eq, inArray, sql } from "drizzle-orm";
import { createElement } from "react";
import { db, prepareSqlOnce, writeTransaction } from "#db/client.server";
import {
  emailUnsubscribes,
  folderRecipientStates,
  folders,
  type Recipient,
  users,
} from "#db/schema";
import { renderEmail } from "#emails/render.server";
import { ResubscribeRequest, resubscribeRequestSubject } from "#emails/resubscribe-request";
import { type Folder, getFolder, recipientsOf } from "~/utils/folders.server";
import { sendEmail } from "~/utils/mailer.server";
import { recordRecipientChoice } from "~/utils/recipient-choices.server";
import { resubscribeUrl } from "~/utils/recipient-links.server";
import { clientIp, userAgent } from "~/utils/request-info.server";

/**
 * Who still receives a folder. A recipient leaves one folder (a
 * folder_recipient_states row, status unsubscribed) or everything from
 * Thoughtfully (an email_unsubscribes row, plus the folder rows); a permanent
 * delivery failure marks them bounced. Addresses are compared and stored in
 * lower case. A folder whose recipients have all unsubscribed is
 * `isUnsubscribed` (shared decisions); bounced recipients do not count as
 * unsubscribed, the sender sees the bounce instead.
 */
export const UNSUBSCRIBE_REASONS = ["unknown", "not_interested", "too_frequent", "other"] as const;
export type UnsubscribeReason = (typeof UNSUBSCRIBE_REASONS)[number];
export type UnsubscribeScope = "folder" | "everything";

export const RESUBSCRIBE_REQUEST_INTERVAL_MS = 30 * 24 * 60 * 60 * 1000;

/** A rule the caller broke; its message is meant for the sender. */
export class RecipientRuleError extends Error {}
/** The link's folder does not exist (any more). */
export class UnknownFolderError extends Error {}

type Transaction = Parameters<Parameters<typeof writeTransaction>[0]>[0];
type StateRow = typeof folderRecipientStates.$inferSelect;

function lower(email: string) {
  return email.trim().toLowerCase();
}

export function isUnsubscribeReason(value: unknown): value is UnsubscribeReason {
  return UNSUBSCRIBE_REASONS.includes(value as UnsubscribeReason);
}

/**
 * The folder's recipients that get its e-mail: neither unsubscribed nor
 * bounced in this folder, nor unsubscribed from everything. Two queries.
 */
export function activeRecipients(folder: Folder): Recipient[] {
  const recipients = recipientsOf(folder);
  if (recipients.length === 0) return [];
  const blocked = new Set(
    db
      .select({ email: folderRecipientStates.email })
      .from(folderRecipientStates)
      .where(
        and(
          eq(folderRecipientStates.folderId, folder.id),
          inArray(folderRecipientStates.status, ["unsubscribed", "bounced"]),
        ),
      )
      .all()
      .map((row) => row.email),
  );
  const emails = [...new Set(recipients.map((recipient) => lower(recipient.email)))];
  for (const row of db
    .select({ email: emailUnsubscribes.email })
    .from(emailUnsubscribes)
    .where(inArray(emailUnsubscribes.email, emails))
    .all()) {
    blocked.add(row.email);
  }
  return recipients.filter((recipient) => !blocked.has(lower(recipient.email)));
}

export type RecipientState = {
  name: string;
  email: string;
  status: "active" | "unsubscribed" | "bounced";
  /** "everything" when the address left every folder of Thoughtfully. */
  scope: UnsubscribeScope | null;
  unsubscribedAt: Date | null;
  unsubscribeReason: UnsubscribeReason | null;
  bounceCount: number;
  lastBounceAt: Date | null;
  bounceReason: string | null;
  resubscribeRequestedAt: Date | null;
};

function stateOf(
  recipient: Recipient,
  row: StateRow | undefined,
  everything: typeof emailUnsubscribes.$inferSelect | undefined,
): RecipientState {
  const unsubscribed = row?.status === "unsubscribed" || Boolean(everything);
  const reason = row?.status === "unsubscribed" ? row.unsubscribeReason : null;
  return {
    name: recipient.name,
    email: lower(recipient.email),
    status: unsubscribed ? "unsubscribed" : (row?.status ?? "active"),
    scope: everything ? "everything" : unsubscribed ? "folder" : null,
    unsubscribedAt: unsubscribed
      ? ((row?.status === "unsubscribed" ? row.unsubscribedAt : null) ??
        everything?.unsubscribedAt ??
        null)
      : null,
    unsubscribeReason: unsubscribed
      ? isUnsubscribeReason(reason)
        ? reason
        : (everything?.unsubscribeReason ?? "unknown")
      : null,
    bounceCount: row?.bounceCount ?? 0,
    lastBounceAt: row?.lastBounceAt ?? null,
    bounceReason: row?.bounceReason ?? null,
    resubscribeRequestedAt: row?.resubscribeRequestedAt ?? null,
  };
}

function statesOf(executor: Transaction | typeof db, folder: Folder): RecipientState[] {
  const recipients = recipientsOf(folder);
  if (recipients.length === 0) return [];
  const rows = new Map(
    executor
      .select()
      .from(folderRecipientStates)
      .where(eq(folderRecipientStates.folderId, folder.id))
      .all()
      .map((row) => [row.email, row]),
  );
  const everything = new Map(
    executor
      .select()
      .from(emailUnsubscribes)
      .where(
        inArray(
          emailUnsubscribes.email,
          recipients.map((recipient) => lower(recipient.email)),
        ),
      )
      .all()
      .map((row) => [row.email, row]),
  );
  return recipients.map((recipient) =>
    stateOf(recipient, rows.get(lower(recipient.email)), everything.get(lower(recipient.email))),
  );
}

/** Every recipient of the folder with their status, for the sender's Recipients dialog. */
export function recipientStates(folderId: number): RecipientState[] {
  const folder = db.select().from(folders).where(eq(folders.id, folderId)).get();
  return folder ? statesOf(db, folder) : [];
}

const unsubscribedCountsQuery = prepareSqlOnce<{ folderId: number; count: number }>(sql`
    with recipient(folder_id, email) as (
      select f.id, lower(trim(json_extract(r.value, '$.email')))
        from ${folders} f, json_each(f.recipients) r
        where f.user_id = ${sql.placeholder("userId")}
      union
      select f.id, lower(trim(f.recipient_email)) from ${folders} f
        where f.user_id = ${sql.placeholder("userId")} and json_array_length(f.recipients) = 0
          and f.recipient_email is not null
      union
      select f.id, lower(trim(f.recipient_email_2)) from ${folders} f
        where f.user_id = ${sql.placeholder("userId")} and json_array_length(f.recipients) = 0
          and f.recipient_email_2 is not null
    )
    select recipient.folder_id as folderId, count(*) as count
      from recipient
      left join ${folderRecipientStates} s
        on s.folder_id = recipient.folder_id and s.email = recipient.email
      left join ${emailUnsubscribes} u on u.email = recipient.email
      where s.status = 'unsubscribed' or u.id is not null
      group by recipient.folder_id
  `);

/**
 * For each of the user's folders, how many of its recipients are unsubscribed
 * (from the folder or from everything): one grouped query for all folders.
 */
export function unsubscribedCounts(userId: number): Map<number, number> {
  const rows = unsubscribedCountsQuery.all({ userId });
  return new Map(rows.map((row) => [Number(row.folderId), Number(row.count)]));
}

/** Every folder (of any sender) that lists the address: for "everything from Thoughtfully". */
function foldersListing(tx: Transaction, email: string): Folder[] {
  return tx
    .select()
    .from(folders)
    .where(
      sql`exists (select 1 from json_each(${folders.recipients}) r
                   where lower(trim(json_extract(r.value, '$.email'))) = ${email})
          or (json_array_length(${folders.recipients}) = 0
              and (lower(trim(${folders.recipientEmail})) = ${email}
                   or lower(trim(${folders.recipientEmail2})) = ${email}))`,
    )
    .all();
}

function stateRow(tx: Transaction, folderId: number, email: string) {
  return tx
    .select()
    .from(folderRecipientStates)
    .where(
      and(eq(folderRecipientStates.folderId, folderId), eq(folderRecipientStates.email, email)),
    )
    .get();
}

function writeState(
  tx: Transaction,
  folderId: number,
  email: string,
  values: Partial<Omit<typeof folderRecipientStates.$inferInsert, "id" | "folderId" | "email">>,
) {
  tx.insert(folderRecipientStates)
    .values({ folderId, email, ...values })
    .onConflictDoUpdate({
      target: [folderRecipientStates.folderId, folderRecipientStates.email],
      set: { ...values, updatedAt: new Date() },
    })
    .run();
}

/** Marks the address unsubscribed in one folder; a repeat keeps the first time, a real reason refines "unknown". */
function markUnsubscribed(
  tx: Transaction,
  folderId: number,
  email: string,
  reason: UnsubscribeReason,
  now: Date,
) {
  const existing = stateRow(tx, folderId, email);
  if (existing?.status === "unsubscribed") {
    if (reason !== "unknown" && existing.unsubscribeReason !== reason) {
      writeState(tx, folderId, email, { unsubscribeReason: reason });
    }
    return;
  }
  writeState(tx, folderId, email, {
    status: "unsubscribed",
    unsubscribedAt: now,
    unsubscribeReason: reason,
  });
}

/**
 * Sets the folder's `isUnsubscribed` from its recipients' states: true when
 * every recipient is unsubscribed, false as soon as one is not. Call it after
 * changing a folder's recipients too.
 */
export function refreshFolderSubscription(
  folderId: number,
  tx?: Transaction,
  reason: UnsubscribeReason | null = null,
) {
  const run = (executor: Transaction) => {
    const folder = executor.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) return;
    const states = statesOf(executor, folder);
    const allOut = states.length > 0 && states.every((state) => state.status === "unsubscribed");
    if (allOut === folder.isUnsubscribed) return;
    const last = states
      .filter((state) => state.unsubscribedAt)
      .sort((a, b) => b.unsubscribedAt!.getTime() - a.unsubscribedAt!.getTime())[0];
    executor
      .update(folders)
      .set(
        allOut
          ? {
              isUnsubscribed: true,
              unsubscribedAt: new Date(),
              unsubscribeReason: reason ?? last?.unsubscribeReason ?? "unknown",
            }
          : { isUnsubscribed: false, unsubscribedAt: null, unsubscribeReason: null },
      )
      .where(eq(folders.id, folderId))
      .run();
  };
  if (tx) run(tx);
  else writeTransaction(run);
}

/**
 * The recipient's choice from a signed link. "folder" leaves this folder;
 * "everything" also records the address in email_unsubscribes (with the
 * client's address and browser), which keeps it out of every folder, today's
 * and future ones, and marks it in every folder that lists it now. Repeating
 * it changes nothing. Throws UnknownFolderError when the folder is gone.
 */
export function unsubscribe({
  folderId,
  email,
  reason = "unknown",
  scope = "folder",
  request,
}: {
  folderId: number;
  email: string;
  reason?: UnsubscribeReason;
  scope?: UnsubscribeScope;
  request?: Request;
}) {
  const address = lower(email);
  const now = new Date();
  writeTransaction((tx) => {
    const folder = tx.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) throw new UnknownFolderError();
    recordRecipientChoice({
      at: now,
      choice: "unsubscribe",
      folderId,
      email: address,
      scope,
      reason,
    });
    markUnsubscribed(tx, folder.id, address, reason, now);
    const touched = new Set([folder.id]);
    if (scope === "everything") {
      tx.insert(emailUnsubscribes)
        .values({
          email: address,
          unsubscribedAt: now,
          unsubscribeReason: reason,
          folderId: folder.id,
          userId: folder.userId,
          ipAddress: request ? clientIp(request) : null,
          userAgent: request ? userAgent(request) : null,
        })
        .onConflictDoNothing({ target: emailUnsubscribes.email })
        .run();
      for (const other of foldersListing(tx, address)) {
        markUnsubscribed(tx, other.id, address, reason, now);
        touched.add(other.id);
      }
    }
    for (const id of touched) refreshFolderSubscription(id, tx, id === folder.id ? reason : null);
  });
}

/**
 * The recipient's own "Re-subscribe" (from a signed link): active again in
 * this folder. An "everything" opt-out ends too, but the other folders that
 * list the address keep it unsubscribed (their rows are written first), so
 * saying yes to one sender does not bring back the others.
 */
export function resubscribe(folderId: number, email: string) {
  const address = lower(email);
  writeTransaction((tx) => {
    const folder = tx.select().from(folders).where(eq(folders.id, folderId)).get();
    if (!folder) throw new UnknownFolderError();
    recordRecipientChoice({ at: new Date(), choice: "resubscribe", folderId, email: address });
    const everything = tx
      .select()
      .from(emailUnsubscribes)
      .where(eq(emailUnsubscribes.email, address))
      .get();
    if (everything) {
      for (const other of foldersListing(tx, address)) {
        if (other.id === folder.id) continue;
        const existing = stateRow(tx, other.id, address);
        if (!existing || existing.status === "active") {
          writeState(tx, other.id, address, {
            status: "unsubscribed",
            unsubscribedAt: everything.unsubscribedAt,
            unsubscribeReason: everything.unsubscribeReason,
          });
        }
      }
      tx.delete(emailUnsubscribes).where(eq(emailUnsubscribes.id, everything.id)).run();
    }
    writeState(tx, folder.id, address, {
      status: "active",
      unsubscribedAt: null,
      unsubscribeReason: null,
    });
    refreshFolderSubscription(folder.id, tx);
  });
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

function formatDay(date: Date, timeZone: string) {
  return new Intl.DateTimeFormat("en-US", {
    timeZone,
    month: "long",
    day: "numeric",
    year: "numeric",
  }).format(date);
}

/**
 * The sender asks an unsubscribed recipient back: one e-mail with a signed
 * /resubscribe link, at most once per 30 days per recipient and folder.
 * Throws FolderNotFoundError for a folder that is not the user's and
 * RecipientRuleError (message for the sender) when the rules say no. When the
 * e-mail cannot be sent the request is not counted.
 */
export async function requestResubscription(userId: number, folderId: number, email: string) {
  const folder = getFolder(userId, folderId);
  const address = lower(email);
  const recipient = recipientsOf(folder).find((entry) => lower(entry.email) === address);
  if (!recipient) throw new RecipientRuleError(`${email} is not a recipient of this folder.`);
  const sender = db.select().from(users).where(eq(users.id, userId)).get()!;
  const now = new Date();
  const previous = writeTransaction((tx) => {
    const state = statesOf(tx, folder).find((entry) => entry.email === address);
    if (state?.status !== "unsubscribed") {
      throw new RecipientRuleError(`${recipient.email} has not unsubscribed from this folder.`);
    }
    const last = state.resubscribeRequestedAt;
    if (last && now.getTime() - last.getTime() < RESUBSCRIBE_REQUEST_INTERVAL_MS) {
      const next = new Date(last.getTime() + RESUBSCRIBE_REQUEST_INTERVAL_MS);
      throw new RecipientRuleError(
        `You already asked ${recipient.email} to re-subscribe on ${formatDay(last, sender.timeZone)}. You can ask once every 30 days: next on ${formatDay(next, sender.timeZone)}.`,
      );
    }
    const existing = stateRow(tx, folder.id, address);
    writeState(tx, folder.id, address, {
      resubscribeRequestedAt: now,
      // Only unsubscribed from everything so far: the folder row records the request.
      ...(existing?.status === "unsubscribed"
        ? {}
        : {
            status: "unsubscribed" as const,
            unsubscribedAt: state.unsubscribedAt,
            unsubscribeReason: state.unsubscribeReason,
          }),
    });
    return last;
  });
  const senderName = senderNameOf(sender);
  const { html, text } = renderEmail(
    createElement(ResubscribeRequest, {
      senderName,
      folderName: folder.name,
      resubscribeUrl: resubscribeUrl(address, folder.id),
    }),
  );
  try {
    await sendEmail({
      to: address,
      subject: resubscribeRequestSubject(senderName, folder.name),
      html,
      text,
      replyTo: sender.email,
    });
  } catch (error) {
    writeTransaction((tx) =>
      writeState(tx, folder.id, address, { resubscribeRequestedAt: previous }),
    );
    throw error;
  }
}

/**
 * A permanent delivery failure (SMTP 5xx) for one recipient: the recipient is
 * bounced in this folder (an unsubscribed one stays unsubscribed) and the
 * folder records the bounce for the sender. For the send engine.
 */
export function markBounced(folderId: number, email: string, reason: string) {
  const address = lower(email);
  const now = new Date();
  writeTransaction((tx) => {
    const existing = stateRow(tx, folderId, address);
    writeState(tx, folderId, address, {
      status: existing?.status === "unsubscribed" ? "unsubscribed" : "bounced",
      bounceCount: (existing?.bounceCount ?? 0) + 1,
      lastBounceAt: now,
      bounceReason: reason,
    });
    tx.update(folders)
      .set({
        bounceCount: sql`${folders.bounceCount} + 1`,
        lastBounceAt: now,
        bounceStatus: "bounced",
        bounceReason: reason,
      })
      .where(eq(folders.id, folderId))
      .run();
  });
}
