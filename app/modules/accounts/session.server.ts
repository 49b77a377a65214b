import crypto from "node:crypto";
import { createCookie, redirect } from "@remix-run/node";
import { and, eq, gt, ne, sql } from "drizzle-orm";
import { sessions, users } from "#db/schema";
import type { User } from "#db/types";
import { db, prepareOnce } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { clientIp, pathOf, userAgent } from "~/platform/request-info.server";

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
    .select({ user: users, expire: sessions.expire })
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
  return { user: row.user, sessionId, renewedCookie };
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
  params.set("redirectTo", pathOf(request));
  return `/login?${params}`;
}

/** The signed-in user, or a redirect to log in that comes back here afterwards. */
export async function requireUser(request: Request): Promise<SessionUser> {
  const user = await getUser(request);
  if (!user) throw redirect(loginPath(request));
  return user;
}

export async function requireAnonymous(request: Request) {
  if (await getUser(request)) throw redirect("/");
}

/** Starts a session and returns the Set-Cookie header for it. */
export async function createSession(userId: number, request: Request): Promise<string> {
  const token = randomToken();
  db.insert(sessions)
    .values({
      sid: hashToken(token),
      userId,
      expire: new Date(Date.now() + SESSION_TTL_MS),
      ipAddress: clientIp(request),
      userAgent: userAgent(request),
    })
    .run();
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
