import { and, count, eq, gt, sql } from "drizzle-orm";
import { db } from "#db/client.server";
import { securityEvents } from "#db/schema";

/**
 * Failed logins are counted from `security_events` (every failure is one
 * row), per e-mail and per client address, over a sliding window. The address
 * limit is looser: many people can share one address.
 */
export const LOGIN_THROTTLE = {
  windowMs: 15 * 60 * 1000,
  maxFailuresPerEmail: 5,
  maxFailuresPerIp: 20,
} as const;

export const THROTTLED_MESSAGE =
  "Too many failed sign-in attempts. Please wait 15 minutes and try again, or reset your password.";

export function isLoginThrottled(email: string, ip: string | null, now = Date.now()) {
  const since = new Date(now - LOGIN_THROTTLE.windowMs);
  const recentFailures = and(
    eq(securityEvents.eventType, "failed_login"),
    gt(securityEvents.createdAt, since),
  );
  const byEmail = db
    .select({ n: count() })
    .from(securityEvents)
    .where(and(recentFailures, sql`json_extract(${securityEvents.details}, '$.email') = ${email}`))
    .get();
  if ((byEmail?.n ?? 0) >= LOGIN_THROTTLE.maxFailuresPerEmail) return true;
  if (!ip) return false;
  const byIp = db
    .select({ n: count() })
    .from(securityEvents)
    .where(and(recentFailures, eq(securityEvents.ipAddress, ip)))
    .get();
  return (byIp?.n ?? 0) >= LOGIN_THROTTLE.maxFailuresPerIp;
}
