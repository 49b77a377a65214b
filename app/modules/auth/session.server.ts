import crypto from "node:crypto";
import { createCookie, redirect } from "@remix-run/node";
import { and, eq, gt, ne, sql } from "drizzle-orm";
import { sessions, users } from "#db/schema";
import type { User } from "#db/types";
import { db, prepareOnce, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { clientIp, userAgent } from "~/platform/request-info.server";
import { keepDraftOf, pageOf } from "./kept-draft.server";

const DAY_MS = 24 * 60 * 60 * 1000;
export const SESSION_TTL_MS = 30 * DAY_MS;
/** A session's expiry moves forward at most once a day, not on every request. */
const RENEW_AFTER_MS = DAY_MS;

/**
 * The cookie holds a random session token, signed; the `sessions` table holds
 * its SHA-256, so a leaked database does not hand out live sessions. Deleting
 * the row ends the session everywhere, whatever copies of the cookie exist.
 */
export const sessionCookie = createCookie(
  env.isHttps ? "__Host-thoughtfully_session" : "thoughtfully_session",
  {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: env.isHttps,
    secrets: [env.SESSION_SECRET],
    maxAge: SESSION_TTL_MS / 1000,
  },
);

export type SessionUser = User;

/** How a session was signed in (`sessions.sign_in_method`); null for sessions from before it was recorded. */
export type SignInMethod = NonNullable<(typeof sessions.$inferSelect)["signInMethod"]>;
export type SecondFactorMethod = Extract<SignInMethod, "totp" | "recovery-code" | "passkey">;

const SECOND_FACTOR_METHODS: ReadonlySet<SignInMethod | null> = new Set<SecondFactorMethod>([
  "totp",
  "recovery-code",
  "passkey",
]);

/**
 * Whether this session itself was opened (or raised) with a second factor. A
 * property of the session, not of the account: enrolling a second factor
 * later, or a device trusted at log-in, does not make it one
 * (docs/decisions/0104-admin-needs-a-second-factor-session.md).
 */
export function isSecondFactorSession(session: Pick<CurrentSession, "signInMethod">) {
  return SECOND_FACTOR_METHODS.has(session.signInMethod);
}

export function hashToken(token: string) {
  return crypto.createHash("sha256").update(token).digest("hex");
}

export function randomToken() {
  return crypto.randomBytes(32).toString("base64url");
}

async function readSessionToken(request: Request): Promise<string | null> {
  const value = await sessionCookie.parse(request.headers.get("Cookie"));
  return typeof value === "string" && value.length > 0 ? value : null;
}

export type CurrentSession = {
  user: SessionUser;
  /** The hashed id stored in the table; binds CSRF tokens to this session. */
  sessionId: string;
  signInMethod: SignInMethod | null;
  /** A refreshed cookie to send when the session's expiry was moved forward. */
  renewedCookie: string | null;
};

/** The root loader and the page's loader ask for the session of the same request: look it up once. */
const sessionsByRequest = new WeakMap<Request, Promise<CurrentSession | null>>();

export function getCurrentSession(request: Request): Promise<CurrentSession | null> {
  let session = sessionsByRequest.get(request);
  if (!session) {
    session = lookUpSession(request);
    sessionsByRequest.set(request, session);
  }
  return session;
}

/** The live session of a hashed token and its user; `now` in epoch ms, as `expire` is stored. */
const liveSessionQuery = prepareOnce((database) =>
  database
    .select({ user: users, expire: sessions.expire, signInMethod: sessions.signInMethod })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.sid, sql.placeholder("sessionId")),
        gt(sessions.expire, sql.placeholder("now")),
      ),
    )
    .prepare(),
);

async function lookUpSession(request: Request): Promise<CurrentSession | null> {
  const token = await readSessionToken(request);
  if (!token) return null;
  const sessionId = hashToken(token);
  const now = Date.now();
  const row = liveSessionQuery().get({ sessionId, now });
  if (!row) return null;
  let renewedCookie: string | null = null;
  if (row.expire.getTime() - now < SESSION_TTL_MS - RENEW_AFTER_MS) {
    db.update(sessions)
      .set({ expire: new Date(now + SESSION_TTL_MS) })
      .where(eq(sessions.sid, sessionId))
      .run();
    renewedCookie = await sessionCookie.serialize(token);
  }
  return { user: row.user, sessionId, signInMethod: row.signInMethod, renewedCookie };
}

export async function getUser(request: Request) {
  return (await getCurrentSession(request))?.user ?? null;
}

/** Whether the browser sent a session cookie at all (valid or not). */
function carriesSessionCookie(request: Request) {
  const prefix = `${sessionCookie.name}=`;
  return (request.headers.get("Cookie") ?? "")
    .split(";")
    .some((part) => part.trim().startsWith(prefix));
}

/**
 * Where a signed-out request is sent. "Your session has expired" is said only
 * to a browser that had a session (its cookie came with the request): someone
 * who never signed in, or signed out, is simply asked to log in.
 */
export function loginPath(request: Request, { explain = true }: { explain?: boolean } = {}) {
  const params = new URLSearchParams();
  if (explain && carriesSessionCookie(request)) params.set("reason", "session_expired");
  // A form's page, not its post's address: Remix's `?index` marks a post, not a page.
  params.set("redirectTo", pageOf(new URL(request.url)));
  return `/login?${params}`;
}

/** The stored id of the session cookie this request came with, when that session has ended. */
export async function endedSessionIdOf(request: Request): Promise<string | null> {
  if (await getCurrentSession(request)) return null;
  const token = await readSessionToken(request);
  return token ? hashToken(token) : null;
}

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The way to log in for a signed-out request, coming back here afterwards. A
 * form sent after its session ended keeps what was typed for the page it
 * came from (docs/decisions/0156-typed-input-survives-a-session-that-ended.md);
 * `formData` when the body was read already.
 */
export async function signedOutRedirect(request: Request, formData?: FormData) {
  const location = loginPath(request);
  const endedSessionId = WRITE_METHODS.has(request.method) ? await endedSessionIdOf(request) : null;
  const keptDraft = endedSessionId ? await keepDraftOf(request, endedSessionId, formData) : null;
  return redirect(location, keptDraft ? { headers: { "Set-Cookie": keptDraft } } : undefined);
}

/** The signed-in user, or a redirect to log in that comes back here afterwards. */
export async function requireUser(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) throw await signedOutRedirect(request);
  return user;
}

export async function requireAnonymous(request: Request) {
  if (await getUser(request)) throw redirect("/");
}

function newSessionRow(userId: number, request: Request, method: SignInMethod) {
  const token = randomToken();
  const row = {
    sid: hashToken(token),
    userId,
    expire: new Date(Date.now() + SESSION_TTL_MS),
    ipAddress: clientIp(request),
    userAgent: userAgent(request),
    signInMethod: method,
  } satisfies typeof sessions.$inferInsert;
  return { token, row };
}

/** Starts a session signed in by `method` and returns the Set-Cookie header for it. */
export async function createSession(
  userId: number,
  request: Request,
  method: SignInMethod,
): Promise<string> {
  const { token, row } = newSessionRow(userId, request, method);
  db.insert(sessions).values(row).run();
  return sessionCookie.serialize(token);
}

/**
 * The owner of `session` has just given a second factor on it: the session
 * is replaced by a new one (a new token, as on any change of privilege)
 * signed in by that factor, and counted as re-verified now. Returns the
 * Set-Cookie header of the new session.
 */
export async function raiseToSecondFactorSession(
  request: Request,
  session: CurrentSession,
  method: SecondFactorMethod,
): Promise<string> {
  const { token, row } = newSessionRow(session.user.id, request, method);
  writeTransaction((tx) => {
    tx.delete(sessions).where(eq(sessions.sid, session.sessionId)).run();
    tx.insert(sessions)
      .values({ ...row, reauthenticatedAt: new Date(), reauthenticatedBy: method })
      .run();
  });
  return sessionCookie.serialize(token);
}

/** Ends this request's session on the server and returns the header that clears the cookie. */
export async function destroySession(request: Request): Promise<string> {
  const token = await readSessionToken(request);
  if (token)
    db.delete(sessions)
      .where(eq(sessions.sid, hashToken(token)))
      .run();
  return sessionCookie.serialize("", { maxAge: 0 });
}

export function revokeUserSessions(userId: number, options: { except?: string } = {}) {
  const condition = options.except
    ? and(eq(sessions.userId, userId), ne(sessions.sid, options.except))
    : eq(sessions.userId, userId);
  return db.delete(sessions).where(condition).run().changes;
}
