import { and, desc, eq, gte, isNull, lte, or, sql } from "drizzle-orm";
import { folders, relayRefusals, sendLedger } from "#db/schema";
import {
  db,
  prepareOnce,
  writeTransaction,
  writeTransactionWithoutFsync,
} from "~/platform/db.server";
import { env } from "~/platform/env.server";
import type { RelayAnswer } from "./relay-answers.server";

/**
 * The relay refusing us, and the sends whose message it refused, for the sending engine and
 * the operator (docs/decisions/0240-every-smtp-answer-read-for-what-it-is-about.md).
 *
 * A refusal of us (relay-answers.server.ts: "relay") opens a hold of all sending, one row of
 * `relay_refusals`, shared by every thread and process through the database. While it holds,
 * no copy goes; from its `next_try_at` one copy tries (the first to ask takes that try, so
 * copies sent at once do not all meet the same wall). The relay refusing that try again holds
 * it longer, along RELAY_HOLD_DELAYS_MS; any answer that gets past us (the copy accepted, or
 * refused for its recipient or its message) ends it. Every change is one line in the log, in
 * the relay's own words, without the SMTP password.
 */

/** How long all sending waits after the n-th refused try of a hold; the last for ever after. */
export const RELAY_HOLD_DELAYS_MS = [1, 2, 5, 10, 15, 30].map((minutes) => minutes * 60_000);

/** How far back the admin pages list sends whose message the relay refused. */
const REFUSED_SENDS_DAYS = 30;
const REFUSED_SENDS_SHOWN = 20;

const holdDelay = (tries: number) =>
  RELAY_HOLD_DELAYS_MS[Math.min(tries, RELAY_HOLD_DELAYS_MS.length) - 1]!;

const openHold = and(eq(relayRefusals.about, "relay"), isNull(relayRefusals.endedAt));

/** Read before every copy: built and compiled once. */
const statements = prepareOnce((database) => ({
  openHold: database
    .select({
      id: relayRefusals.id,
      refusals: relayRefusals.refusals,
      nextTryAt: relayRefusals.nextTryAt,
    })
    .from(relayRefusals)
    .where(openHold)
    .limit(1)
    .prepare(),
}));

/** The words as the operator may see them: the SMTP password is never among them. */
function withoutSecrets(words: string) {
  if (!env.SMTP_URL) return words;
  let user = "";
  let password = "";
  try {
    const url = new URL(env.SMTP_URL);
    user = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    return words;
  }
  // Short passwords are left alone: hiding every "a" would hide the relay's words instead.
  if (password.length < 4) return words;
  const spellings = [
    password,
    encodeURIComponent(password),
    Buffer.from(password).toString("base64"),
    Buffer.from(`\u0000${user}\u0000${password}`).toString("base64"),
  ];
  // The longest first: the password's base64 can be a part of the AUTH PLAIN token's.
  return spellings
    .sort((a, b) => b.length - a.length)
    .reduce((text, secret) => text.split(secret).join("[SMTP password]"), words);
}

export type RelayGate =
  | { state: "open" }
  /** The hold's time has come and this copy is its try. */
  | { state: "try" }
  | { state: "held"; until: Date };

/** Whether a copy may go to the relay now. */
export function relayGate(now: Date): RelayGate {
  const hold = statements().openHold.get();
  if (!hold) return { state: "open" };
  if (hold.nextTryAt && hold.nextTryAt > now) return { state: "held", until: hold.nextTryAt };
  // Taken by one copy only; its answer decides. Not fsynced: a lost take is a try repeated.
  const until = new Date(now.getTime() + holdDelay(hold.refusals));
  const taken = writeTransactionWithoutFsync(
    (tx) =>
      tx
        .update(relayRefusals)
        .set({ nextTryAt: until })
        .where(
          and(
            eq(relayRefusals.id, hold.id),
            isNull(relayRefusals.endedAt),
            or(isNull(relayRefusals.nextTryAt), lte(relayRefusals.nextTryAt, now)),
          ),
        )
        .run().changes === 1,
  );
  return taken ? { state: "try" } : { state: "held", until };
}

/** The hold of all sending, while there is one: when its next try is, and the relay's words. */
export function relayHold(): { nextTryAt: Date | null; answer: string } | null {
  return (
    db
      .select({ nextTryAt: relayRefusals.nextTryAt, answer: relayRefusals.answer })
      .from(relayRefusals)
      .where(openHold)
      .get() ?? null
  );
}

/** Whether sending is held now ("held"), held but due for its try ("due"), or not ("none"). */
export function relayHoldState(now: Date): "none" | "held" | "due" {
  const hold = statements().openHold.get();
  if (!hold) return "none";
  return hold.nextTryAt && hold.nextTryAt > now ? "held" : "due";
}

/**
 * The relay refused us: sending is held (or held longer, when this was the hold's try). A copy
 * that was already on its way when the hold began adds nothing but its words. Returns when
 * the next copy may try.
 */
export function relayRefused(answer: RelayAnswer, gate: RelayGate, now: Date): Date {
  const words = withoutSecrets(answer.words);
  const hold = writeTransaction((tx) => {
    const open = tx.select().from(relayRefusals).where(openHold).get();
    if (!open) {
      const nextTryAt = new Date(now.getTime() + holdDelay(1));
      tx.insert(relayRefusals)
        .values({
          about: "relay",
          stage: answer.stage,
          answer: words,
          firstAt: now,
          lastAt: now,
          nextTryAt,
        })
        .run();
      return { refusals: 1, firstAt: now, nextTryAt, told: true };
    }
    const tried = gate.state === "try";
    const refusals = tried ? open.refusals + 1 : open.refusals;
    const nextTryAt = tried
      ? new Date(now.getTime() + holdDelay(refusals))
      : (open.nextTryAt ?? new Date(now.getTime() + holdDelay(refusals)));
    tx.update(relayRefusals)
      .set({ refusals, stage: answer.stage, answer: words, lastAt: now, nextTryAt })
      .where(eq(relayRefusals.id, open.id))
      .run();
    return { refusals, firstAt: open.firstAt, nextTryAt, told: tried };
  });
  if (hold.told) {
    const since =
      hold.refusals === 1
        ? ""
        : `, ${hold.refusals} tries refused since ${hold.firstAt.toISOString()}`;
    console.error(
      `[relay] sending held: the relay refused us at ${answer.stage}${since}: "${words}"; next try at ${hold.nextTryAt.toISOString()}`,
    );
  }
  return hold.nextTryAt;
}

/** The relay answered past us: a hold ends and sending resumes. */
export function relayAnswered(now: Date) {
  const ended = writeTransaction((tx) =>
    tx
      .update(relayRefusals)
      .set({ endedAt: now, nextTryAt: null })
      .where(openHold)
      .returning({ firstAt: relayRefusals.firstAt, refusals: relayRefusals.refusals })
      .get(),
  );
  if (ended) {
    console.info(
      `[relay] the relay takes mail again: sending resumes (held since ${ended.firstAt.toISOString()}, ${ended.refusals} ${ended.refusals === 1 ? "try" : "tries"} refused)`,
    );
  }
}

/**
 * The relay refused the message of a send (its size or content): its copies wait for their
 * retry at `retryAt` (null: they have had their tries and the send fails), nobody bounced.
 */
export function sendRefused(
  send: { ledgerId: number; folderId: number },
  answer: RelayAnswer,
  retryAt: Date | null,
  now: Date,
) {
  const words = withoutSecrets(answer.words);
  writeTransaction((tx) =>
    tx
      .insert(relayRefusals)
      .values({
        about: "message",
        ledgerId: send.ledgerId,
        stage: answer.stage,
        answer: words,
        firstAt: now,
        lastAt: now,
        nextTryAt: retryAt,
      })
      .onConflictDoUpdate({
        target: relayRefusals.ledgerId,
        set: {
          refusals: sql`${relayRefusals.refusals} + 1`,
          stage: answer.stage,
          answer: words,
          lastAt: now,
          nextTryAt: retryAt,
        },
      })
      .run(),
  );
  const then = retryAt
    ? `its copies wait for their retry at ${retryAt.toISOString()}`
    : "it has had its tries and fails";
  console.error(
    `[relay] the relay refused the message of send ${send.ledgerId} (folder ${send.folderId}) at ${answer.stage}: "${words}"; ${then}; nobody is marked bounced`,
  );
}

export type RelayStatus = {
  /** Sending is held now. */
  hold: {
    since: Date;
    stage: string;
    answer: string;
    refusals: number;
    lastAt: Date;
    nextTryAt: Date | null;
  } | null;
  /** The last hold that ended. */
  lastHold: { since: Date; endedAt: Date; stage: string; answer: string; refusals: number } | null;
  /** Sends whose message the relay refused in the last 30 days, the latest first. */
  refusedSends: {
    ledgerId: number;
    folderId: number;
    folderName: string;
    stage: string;
    answer: string;
    refusals: number;
    lastAt: Date;
    /** "waiting": its copies wait for a retry; "sent": it went after all; "failed": it did not. */
    outcome: "waiting" | "sent" | "failed";
  }[];
};

/** What the admin and postmaster pages show of the relay. */
export function relayStatus(now: Date): RelayStatus {
  const hold = db.select().from(relayRefusals).where(openHold).get();
  const lastHold = db
    .select()
    .from(relayRefusals)
    .where(and(eq(relayRefusals.about, "relay"), sql`${relayRefusals.endedAt} is not null`))
    .orderBy(desc(relayRefusals.endedAt))
    .limit(1)
    .get();
  const refusedSends = db
    .select({
      ledgerId: sendLedger.id,
      folderId: folders.id,
      folderName: folders.name,
      stage: relayRefusals.stage,
      answer: relayRefusals.answer,
      refusals: relayRefusals.refusals,
      lastAt: relayRefusals.lastAt,
      status: sendLedger.status,
    })
    .from(relayRefusals)
    .innerJoin(sendLedger, eq(sendLedger.id, relayRefusals.ledgerId))
    .innerJoin(folders, eq(folders.id, sendLedger.folderId))
    .where(
      and(
        eq(relayRefusals.about, "message"),
        gte(relayRefusals.lastAt, new Date(now.getTime() - REFUSED_SENDS_DAYS * 86_400_000)),
      ),
    )
    .orderBy(desc(relayRefusals.lastAt))
    .limit(REFUSED_SENDS_SHOWN)
    .all();
  return {
    hold: hold
      ? {
          since: hold.firstAt,
          stage: hold.stage,
          answer: hold.answer,
          refusals: hold.refusals,
          lastAt: hold.lastAt,
          nextTryAt: hold.nextTryAt,
        }
      : null,
    lastHold: lastHold?.endedAt
      ? {
          since: lastHold.firstAt,
          endedAt: lastHold.endedAt,
          stage: lastHold.stage,
          answer: lastHold.answer,
          refusals: lastHold.refusals,
        }
      : null,
    refusedSends: refusedSends.map(({ status, ...send }) => ({
      ...send,
      outcome: status === "sending" ? "waiting" : status === "sent" ? "sent" : "failed",
    })),
  };
}
