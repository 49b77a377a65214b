import { RateLimiterRes, RateLimiterSQLite } from "rate-limiter-flexible";
import { db } from "./db.server";

/**
 * Every rate limit of the app goes through here: rate-limiter-flexible with
 * the app's own SQLite database as its store (table `rate_limits`, created by
 * a migration), so counts hold across restarts and across every request of
 * the process, and a point is taken in one atomic upsert before the guarded
 * work starts: a burst sent at the same moment cannot slip past the limit.
 */
export type RateLimit = {
  /** Prefix of the stored keys; unique per limit. */
  name: string;
  /** Requests allowed per window. */
  points: number;
  durationSeconds: number;
  /** Once over the limit, refuse for this long (default: the rest of the window). */
  blockDurationSeconds?: number;
};

export type RateLimitVerdict =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

const limiters = new Map<string, RateLimiterSQLite>();

function limiterFor(limit: RateLimit) {
  let limiter = limiters.get(limit.name);
  if (!limiter) {
    limiter = new RateLimiterSQLite({
      storeClient: db.$client,
      storeType: "better-sqlite3",
      tableName: "rate_limits",
      tableCreated: true,
      keyPrefix: limit.name,
      points: limit.points,
      duration: limit.durationSeconds,
      blockDuration: limit.blockDurationSeconds ?? 0,
    });
    limiters.set(limit.name, limiter);
  }
  return limiter;
}

function secondsUntil(res: RateLimiterRes) {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/** Takes `points` for `key`; refused once the window's points are spent. */
export async function consumeRateLimit(
  limit: RateLimit,
  key: string,
  points = 1,
): Promise<RateLimitVerdict> {
  try {
    const res = await limiterFor(limit).consume(key, points);
    return { allowed: true, remaining: res.remainingPoints };
  } catch (error) {
    if (error instanceof RateLimiterRes) {
      return { allowed: false, retryAfterSeconds: secondsUntil(error) };
    }
    throw error;
  }
}

/** Several limits at once (per address and per client, say): refused if any refuses. */
export async function consumeRateLimits(
  checks: ReadonlyArray<{ limit: RateLimit; key: string | null }>,
): Promise<RateLimitVerdict> {
  let remaining = Number.POSITIVE_INFINITY;
  for (const { limit, key } of checks) {
    if (key === null) continue;
    const verdict = await consumeRateLimit(limit, key);
    if (!verdict.allowed) return verdict;
    remaining = Math.min(remaining, verdict.remaining);
  }
  return { allowed: true, remaining };
}

/** Whether the next `consumeRateLimit` would pass, without taking anything. */
export async function peekRateLimit(limit: RateLimit, key: string): Promise<RateLimitVerdict> {
  const res = await limiterFor(limit).get(key);
  if (!res || res.consumedPoints < limit.points) {
    return { allowed: true, remaining: res ? res.remainingPoints : limit.points };
  }
  return { allowed: false, retryAfterSeconds: secondsUntil(res) };
}

/** Gives back a point taken for work that turned out fine (a successful log-in, say). */
export async function refundRateLimit(limit: RateLimit, key: string, points = 1) {
  await limiterFor(limit).reward(key, points);
}

/** Forgets `key`'s count (a completed password reset clears failed log-ins, say). */
export async function resetRateLimit(limit: RateLimit, key: string) {
  await limiterFor(limit).delete(key);
}

/** "Please try again in 12 minutes." for a refused request. */
export function retryAfterMessage(retryAfterSeconds: number) {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return minutes <= 1 ? "Please try again in a minute." : `Please try again in ${minutes} minutes.`;
}
