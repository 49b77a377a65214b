import { redirect } from "@remix-run/node";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { count, eq } from "drizzle-orm";
import { createElement } from "react";
import { passkeys, sessions } from "#db/schema";
import { Reauthenticate, reauthenticateSubject } from "#emails/reauthenticate";
import { renderEmail } from "#emails/render.server";
import { runInBackground } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { refuseMailBurst } from "~/platform/mail-limits.server";
import { sendEmail } from "~/platform/mailer.server";
import { safeRedirectPath } from "~/platform/redirect";
import { clientIp, pathOf } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { readSignedPayload, signPayload } from "~/platform/signed-payload.server";
import { z } from "~/platform/zod";
import { recordSuccessfulLogin, takeLoginAttempt } from "./login-throttle.server";
import { finishSignInWithPasskey } from "./passkeys.server";
import { verifyPassword } from "./password.server";
import { isAdmin } from "./roles.server";
import { type CurrentSession, getCurrentSession, hashToken, requireUser } from "./session.server";
import {
  hasTwoFactor,
  recordSuccessfulSecondFactor,
  takeSecondFactorAttempt,
  verifySecondFactor,
} from "./two-factor.server";

/**
 * Sensitive changes (adding a passkey, setting up or turning off two-factor
 * sign-in, new recovery codes, API tokens, downloading or deleting the
 * account) ask the owner to prove who they are again: the password, a
 * current second factor, a passkey, or a link e-mailed to the account's
 * address. The proof is recorded on the session row, so it holds for that
 * session only and for ten minutes. The shape follows epic-stack's verify
 * step: the guarded loader or action redirects to /reauthenticate with where
 * to come back to.
 * docs/decisions/0107-reauthentication-window.md.
 */
export const REAUTHENTICATION_WINDOW_MS = 10 * 60 * 1000;
/** An e-mailed link works once, in the browser that asked for it, for this long. */
export const EMAIL_LINK_TTL_MS = 15 * 60 * 1000;

export type ReauthenticationMethod = NonNullable<
  (typeof sessions.$inferSelect)["reauthenticatedBy"]
>;

export const WRONG_PASSWORD_MESSAGE = "That password is not right.";
export const REAUTHENTICATION_THROTTLED_MESSAGE =
  "Too many wrong attempts. Please wait a while and try again.";

function reauthenticationOf(sessionId: string) {
  return db
    .select({ at: sessions.reauthenticatedAt, by: sessions.reauthenticatedBy })
    .from(sessions)
    .where(eq(sessions.sid, sessionId))
    .get();
}

/** Whether this session proved who it is within the window (by e-mail only, when asked). */
export function isRecentlyReauthenticated(
  sessionId: string,
  { emailOnly = false }: { emailOnly?: boolean } = {},
  now = Date.now(),
) {
  const row = reauthenticationOf(sessionId);
  if (!row?.at || !row.by) return false;
  if (emailOnly && row.by !== "email") return false;
  return now - row.at.getTime() < REAUTHENTICATION_WINDOW_MS;
}

function hasPasskey(userId: number) {
  return (
    (db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)).get()?.n ?? 0) > 0
  );
}

/**
 * An admin account without a second factor is one password away from the
 * admin pages: its first second factor is confirmed from its own mailbox, so
 * a password alone never leads to admin.
 */
export function enrolmentNeedsEmail(userId: number) {
  return isAdmin(userId) && !hasTwoFactor(userId) && !hasPasskey(userId);
}

/** The changes that ask for proof, by the page each goes back to, as "Confirm it's you to …" names them. */
const GUARDED_CHANGES: Record<string, string> = {
  "/profile/tokens": "create an API token",
  "/profile/download": "download your data",
  "/profile/delete": "delete your account",
  "/profile/two-factor": "set up two-step sign-in",
  "/extension/connect": "connect the browser extension",
};

/** What the change waiting on this proof is called, from where it goes back to; null when it has no name of its own. */
export function guardedChangeName(redirectTo: string): string | null {
  const path = new URL(redirectTo, "http://app.invalid").pathname;
  return Object.hasOwn(GUARDED_CHANGES, path) ? GUARDED_CHANGES[path]! : null;
}

export function reauthenticatePath(redirectTo: string, { emailOnly = false } = {}) {
  const params = new URLSearchParams({ redirectTo: safeRedirectPath(redirectTo) });
  if (emailOnly) params.set("by", "email");
  return `/reauthenticate?${params}`;
}

export type ReauthenticationOptions = {
  /** Where to come back to; this request's path when not given. */
  redirectTo?: string;
  emailOnly?: boolean;
};

/** Throws the redirect to /reauthenticate unless this session proved who it is just now. */
export function requireRecentReauthentication(
  request: Request,
  session: CurrentSession,
  { redirectTo, emailOnly = false }: ReauthenticationOptions = {},
) {
  if (isRecentlyReauthenticated(session.sessionId, { emailOnly })) return;
  throw redirect(reauthenticatePath(redirectTo ?? pathOf(request), { emailOnly }));
}

/** The signed-in user of a session that proved who it is just now (else the redirects). */
export async function requireReauthenticatedUser(
  request: Request,
  options: ReauthenticationOptions = {},
) {
  const user = await requireUser(request);
  const session = (await getCurrentSession(request))!;
  requireRecentReauthentication(request, session, options);
  return { user, session };
}

export function recordReauthentication(
  sessionId: string,
  method: ReauthenticationMethod,
  now = new Date(),
) {
  db.update(sessions)
    .set({ reauthenticatedAt: now, reauthenticatedBy: method })
    .where(eq(sessions.sid, sessionId))
    .run();
}

export type ReauthenticationOutcome = "ok" | "wrong" | "throttled";

function recordFailure(request: Request, session: CurrentSession, method: string) {
  recordSecurityEvent(request, {
    eventType: "failed_login",
    severity: "low",
    userId: session.user.id,
    responseStatus: 400,
    details: { reason: "reauthentication_failed", method },
  });
}

/** The password, throttled with log-ins: re-verifying is no way round their limits. */
export async function reauthenticateWithPassword(
  request: Request,
  session: CurrentSession,
  password: string,
): Promise<ReauthenticationOutcome> {
  const { user } = session;
  if (!user.passwordHash) return "wrong";
  const ip = clientIp(request);
  if (!(await takeLoginAttempt(user.email, ip)).allowed) return "throttled";
  if (!(await verifyPassword(password, user.passwordHash))) {
    recordFailure(request, session, "password");
    return "wrong";
  }
  await recordSuccessfulLogin(user.email, ip);
  recordReauthentication(session.sessionId, "password");
  return "ok";
}

/** An authenticator code or a recovery code (spent), throttled with the two-factor step. */
export async function reauthenticateWithCode(
  request: Request,
  session: CurrentSession,
  code: string,
): Promise<ReauthenticationOutcome> {
  const userId = session.user.id;
  const ip = clientIp(request);
  if (!(await takeSecondFactorAttempt(userId, ip)).allowed) return "throttled";
  const method = await verifySecondFactor(userId, code);
  if (!method) {
    recordFailure(request, session, "code");
    return "wrong";
  }
  await recordSuccessfulSecondFactor(userId, ip);
  recordReauthentication(session.sessionId, method === "totp" ? "totp" : "recovery-code");
  return "ok";
}

/** One of the account's own passkeys signed this session's challenge. */
export async function reauthenticateWithPasskey(
  request: Request,
  session: CurrentSession,
  response: AuthenticationResponseJSON,
) {
  const verified = await finishSignInWithPasskey(request, response, session.user.id);
  if (!verified) {
    recordFailure(request, session, "passkey");
    return null;
  }
  recordReauthentication(session.sessionId, "passkey");
  return verified;
}

const EMAIL_LINK_PURPOSE = "reauthenticate";
const EmailLinkSchema = z.object({
  /** A hash of the session's id: the link works only in the browser holding that session. */
  session: z.string(),
  issuedAt: z.number(),
  redirectTo: z.string(),
});

const sessionMark = (sessionId: string) => hashToken(`reauthenticate:${sessionId}`).slice(0, 32);

/**
 * E-mails a link that re-verifies this session (for accounts without a
 * password, and for an admin's first second factor). Limited like the other
 * account e-mails; returns the refusal message, or null once sent.
 */
export async function emailReauthenticationLink(
  request: Request,
  session: CurrentSession,
  redirectTo: string,
) {
  const { user } = session;
  const refused = await refuseMailBurst("reauthentication", request, user.email);
  if (refused) return refused;
  const token = signPayload(EMAIL_LINK_PURPOSE, {
    session: sessionMark(session.sessionId),
    issuedAt: Date.now(),
    redirectTo: safeRedirectPath(redirectTo),
  } satisfies z.infer<typeof EmailLinkSchema>);
  const confirmUrl = `${env.APP_URL}/reauthenticate/email?${new URLSearchParams({ token })}`;
  const { html, text } = renderEmail(
    createElement(Reauthenticate, { firstName: user.firstName, confirmUrl }),
  );
  runInBackground("re-verification e-mail", () =>
    sendEmail({ to: user.email, subject: reauthenticateSubject, html, text }),
  );
  return null;
}

export type EmailLinkOutcome =
  | { status: "ok"; redirectTo: string }
  | { status: "other-browser" }
  | { status: "invalid" };

/** Reads an e-mailed link for this session without using it (the page a GET shows). */
export function readReauthenticationLink(
  session: CurrentSession,
  token: string,
  now = Date.now(),
): EmailLinkOutcome {
  const link = readSignedPayload(EMAIL_LINK_PURPOSE, token, EmailLinkSchema);
  if (!link || now - link.issuedAt >= EMAIL_LINK_TTL_MS) return { status: "invalid" };
  if (link.session !== sessionMark(session.sessionId)) return { status: "other-browser" };
  // Once used, the session's proof is newer than the link: it works once.
  const last = reauthenticationOf(session.sessionId);
  if (last?.at && last.by === "email" && last.at.getTime() >= link.issuedAt) {
    return { status: "invalid" };
  }
  return { status: "ok", redirectTo: safeRedirectPath(link.redirectTo) };
}

/** Uses an e-mailed link: the session is re-verified by e-mail. */
export function acceptReauthenticationLink(session: CurrentSession, token: string) {
  const outcome = readReauthenticationLink(session, token);
  if (outcome.status === "ok") recordReauthentication(session.sessionId, "email");
  return outcome;
}
