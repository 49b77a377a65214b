import {
  consumeRateLimits,
  type RateLimit,
  refundRateLimit,
  resetRateLimit,
} from "~/platform/rate-limit.server";

/**
 * Password log-ins, limited with the app's one rate limiter. An attempt is
 * counted before its password is checked, so a burst sent at the same moment
 * gets no more checks than the limit; a successful log-in forgets the
 * account's count, so it counts consecutive failures.
 *
 * Per account the wait grows with the failures instead of one long lock a
 * stranger could keep renewing: 5 attempts, then up to 15 minutes; 10 in an
 * hour, then up to an hour; 20 in a day, then up to a day. A completed
 * password reset clears the account's count, so the owner always has a way
 * in. Per client address the limit is looser (people share addresses), and a
 * successful log-in gives its attempt back, so only failures use it up.
 * docs/decisions/0054-security-limits.md.
 */
export const LOGIN_ACCOUNT_LIMITS: readonly RateLimit[] = [
  { name: "login_account_15m", points: 5, durationSeconds: 15 * 60 },
  { name: "login_account_1h", points: 10, durationSeconds: 60 * 60 },
  { name: "login_account_1d", points: 20, durationSeconds: 24 * 60 * 60 },
];

export const LOGIN_CLIENT_LIMIT: RateLimit = {
  name: "login_client",
  points: 30,
  durationSeconds: 15 * 60,
};

export const THROTTLED_MESSAGE =
  "Too many failed sign-in attempts. Please wait a while and try again, or reset your password.";

/** Takes one attempt for `email` (and the client address, when known); refused once over a limit. */
export function takeLoginAttempt(email: string, ip: string | null) {
  return consumeRateLimits([
    ...LOGIN_ACCOUNT_LIMITS.map((limit) => ({ limit, key: email })),
    { limit: LOGIN_CLIENT_LIMIT, key: ip },
  ]);
}

/** After a completed password reset: the account starts afresh. */
export async function clearLoginAttempts(email: string) {
  for (const limit of LOGIN_ACCOUNT_LIMITS) await resetRateLimit(limit, email);
}

/** After a successful log-in: the account starts afresh and the client gets its attempt back. */
export async function recordSuccessfulLogin(email: string, ip: string | null) {
  await clearLoginAttempts(email);
  if (ip) await refundRateLimit(LOGIN_CLIENT_LIMIT, ip);
}
