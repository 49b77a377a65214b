import crypto from "node:crypto";
import { and, eq, lt } from "drizzle-orm";
import { oneTimeKeys } from "#db/schema";
import { db, writeTransaction } from "./db.server";
import { ONE_TIME_KEY_FIELD } from "./one-time-keys";

/**
 * A repeated submit is taken once (docs/decisions/0201-a-repeated-submit-is-taken-once.md).
 * Each create form carries a one-time key its loader made; the first save with that key
 * records where it led, in the save's own transaction, and the same form sent again (the
 * browser's retry after the signal dropped, a double tap, JavaScript's send once back online)
 * is answered with that place and saves nothing more.
 */
/** How long a key is remembered: longer than any retry of the same page. */
export const ONE_TIME_KEY_KEPT_MS = 24 * 60 * 60 * 1000;

const KEY_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newOneTimeKey() {
  return crypto.randomUUID();
}

/** The form's key, or null for a form without one (the API, a page opened before keys). */
export function oneTimeKeyOf(formData: FormData) {
  const value = formData.get(ONE_TIME_KEY_FIELD);
  return typeof value === "string" && KEY_SHAPE.test(value) ? value : null;
}

/**
 * Runs `save` (which returns where it led) once per user and key. A repeat gets the first
 * save's place back with `repeated`; a save that throws records nothing, so the form may be
 * sent again. `save` runs inside this write transaction.
 */
export function onceForKey(
  userId: number,
  key: string | null,
  save: () => string,
): { location: string; repeated: boolean } {
  if (!key) return { location: save(), repeated: false };
  return writeTransaction((tx) => {
    const earlier = tx
      .select({ location: oneTimeKeys.location })
      .from(oneTimeKeys)
      .where(and(eq(oneTimeKeys.userId, userId), eq(oneTimeKeys.key, key)))
      .get();
    if (earlier) return { location: earlier.location, repeated: true };
    const location = save();
    tx.insert(oneTimeKeys).values({ userId, key, location }).run();
    return { location, repeated: false };
  });
}

/**
 * Where the first save with this key led, or null. For a repeat that cannot run its save again
 * (an add from files kept in a draft, which went with the first save) but is answered the same.
 */
export function savedWithKey(userId: number, key: string | null): string | null {
  if (!key) return null;
  const earlier = db
    .select({ location: oneTimeKeys.location })
    .from(oneTimeKeys)
    .where(and(eq(oneTimeKeys.userId, userId), eq(oneTimeKeys.key, key)))
    .get();
  return earlier?.location ?? null;
}

/** The nightly pruning: keys past their day. */
export function pruneOneTimeKeys(now = new Date()) {
  return writeTransaction((tx) =>
    tx
      .delete(oneTimeKeys)
      .where(lt(oneTimeKeys.createdAt, new Date(now.getTime() - ONE_TIME_KEY_KEPT_MS)))
      .run(),
  ).changes;
}
