import { data, redirect } from "@remix-run/node";
import { and, desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { userRoles, users } from "#db/schema";
import { db, prepareOnce, writeTransaction } from "~/platform/db.server";
import { consumeRateLimits, type RateLimit } from "~/platform/rate-limit.server";
import { clientIp, isLoopback, pathOf } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import { createToastHeaders, redirectWithToast } from "~/platform/toast.server";
import { ACCESS_DENIED_REDIRECT_MS, type AccessDenied } from "./access-denied";
import {
  type CurrentSession,
  getCurrentSession,
  isSecondFactorSession,
  loginPath,
  type SessionUser,
} from "./session.server";
import { hasTwoFactor } from "./two-factor.server";

export type Role = (typeof userRoles.$inferInsert)["role"];

/** Asked on every signed-in page view (the root loader), hence prepared once. */
const activeAdminRoleQuery = prepareOnce((database) =>
  database
    .select({ id: userRoles.id })
    .from(userRoles)
    .where(
      and(
        eq(userRoles.userId, sql.placeholder("userId")),
        eq(userRoles.role, "admin"),
        eq(userRoles.isActive, true),
      ),
    )
    .prepare(),
);

export function isAdmin(userId: number) {
  return Boolean(activeAdminRoleQuery().get({ userId }));
}

type GrantOptions = { grantedBy?: number | null; reason?: string | null; source?: string };
type RevokeOptions = { revokedBy?: number | null; reason?: string | null; source?: string };

/**
 * Grants a role: a new active `user_roles` row with who, when and why. Rows
 * are never deleted, so the table is the history. Granting a role the user
 * already holds changes nothing and returns "unchanged".
 */
export function grantRole(userId: number, role: Role, options: GrantOptions = {}) {
  return writeTransaction((tx) => {
    const active = tx
      .select({ id: userRoles.id })
      .from(userRoles)
      .where(
        and(eq(userRoles.userId, userId), eq(userRoles.role, role), eq(userRoles.isActive, true)),
      )
      .get();
    if (active) return "unchanged" as const;
    tx.insert(userRoles)
      .values({
        userId,
        role,
        grantedBy: options.grantedBy ?? null,
        grantReason: options.reason?.trim() || null,
        metadata: { source: options.source ?? "dashboard" },
      })
      .run();
    return "granted" as const;
  });
}

/** Revokes every active grant of the role: the rows stay, marked inactive with who and why. */
export function revokeRole(userId: number, role: Role, options: RevokeOptions = {}) {
  const changes = db
    .update(userRoles)
    .set({
      isActive: false,
      revokedAt: new Date(),
      revokedBy: options.revokedBy ?? null,
      revokeReason: options.reason?.trim() || null,
    })
    .where(
      and(eq(userRoles.userId, userId), eq(userRoles.role, role), eq(userRoles.isActive, true)),
    )
    .run().changes;
  return changes > 0 ? ("revoked" as const) : ("unchanged" as const);
}

export function findUserIdByEmail(email: string) {
  return (
    db
      .select({ id: users.id })
      .from(users)
      .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
      .get()?.id ?? null
  );
}

/** The current admins, longest-standing first. */
export function listAdmins() {
  return db
    .select({
      userId: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      grantedAt: userRoles.grantedAt,
    })
    .from(userRoles)
    .innerJoin(users, eq(users.id, userRoles.userId))
    .where(and(eq(userRoles.role, "admin"), eq(userRoles.isActive, true)))
    .orderBy(userRoles.grantedAt, userRoles.id)
    .all();
}

/** Every grant and revocation, newest first, with the addresses of who was involved. */
export function roleHistory(limit = 20) {
  const subject = alias(users, "subject");
  const granter = alias(users, "granter");
  const revoker = alias(users, "revoker");
  return db
    .select({
      id: userRoles.id,
      role: userRoles.role,
      email: subject.email,
      grantedAt: userRoles.grantedAt,
      grantedBy: granter.email,
      grantReason: userRoles.grantReason,
      revokedAt: userRoles.revokedAt,
      revokedBy: revoker.email,
      revokeReason: userRoles.revokeReason,
      isActive: userRoles.isActive,
    })
    .from(userRoles)
    .innerJoin(subject, eq(subject.id, userRoles.userId))
    .leftJoin(granter, eq(granter.id, userRoles.grantedBy))
    .leftJoin(revoker, eq(revoker.id, userRoles.revokedBy))
    .orderBy(desc(sql`max(${userRoles.grantedAt}, coalesce(${userRoles.revokedAt}, 0))`))
    .limit(limit)
    .all();
}

/** The admin roles panel's data, dates as ISO strings for the page. */
export function roleOverview(historyLimit = 10) {
  return {
    admins: listAdmins().map((row) => ({ ...row, grantedAt: row.grantedAt.toISOString() })),
    history: roleHistory(historyLimit).map((row) => ({
      ...row,
      grantedAt: row.grantedAt.toISOString(),
      revokedAt: row.revokedAt?.toISOString() ?? null,
    })),
  };
}
export type RoleOverview = ReturnType<typeof roleOverview>;

/**
 * The gate of every admin loader and action. A signed-out visitor is sent to
 * log in (and back afterwards); a signed-in non-admin gets a 403 "Access
 * Denied" page whose Refresh header moves a browser without JavaScript to /
 * after 1.5 s, and the "Access Denied" toast, which shows there. Both
 * refusals are `unauthorized_access` security events. An admin without
 * two-factor sign-in is sent to set it up first; an admin whose session was
 * not signed in with a second factor (a password alone, a trusted device, a
 * session from before enrolment) is sent to give one on this session
 * (docs/decisions/0104-admin-needs-a-second-factor-session.md). `what` names
 * the screen in the toast ("the admin dashboard").
 */
/**
 * Signed-out visits to admin pages are recorded, but anyone can make them:
 * at most 10 rows an hour per client address and 100 an hour in all, so they
 * cannot grow `security_events` without bound (docs/decisions/0054-security-limits.md).
 */
const SIGNED_OUT_EVENTS_PER_CLIENT: RateLimit = {
  name: "admin_signed_out_events_client",
  points: 10,
  durationSeconds: 60 * 60,
};
const SIGNED_OUT_EVENTS_IN_ALL: RateLimit = {
  name: "admin_signed_out_events_all",
  points: 100,
  durationSeconds: 60 * 60,
};

/**
 * An admin opening an admin screen or posting to it is an `admin_access`
 * event: who looked at everyone's figures, and when. One row per admin, method
 * and path every 10 minutes is enough to answer that; reloading a dashboard
 * does not add more.
 */
const ADMIN_ACCESS_EVENTS: RateLimit = {
  name: "admin_access_events",
  points: 1,
  durationSeconds: 10 * 60,
};

async function recordAdminAccess(request: Request, session: CurrentSession) {
  const path = new URL(request.url).pathname;
  const fresh = await consumeRateLimits([
    {
      limit: ADMIN_ACCESS_EVENTS,
      key: `${session.user.id}:${request.method}:${path}`,
    },
  ]);
  if (!fresh.allowed) return;
  recordSecurityEvent(request, {
    eventType: "admin_access",
    severity: "low",
    userId: session.user.id,
    sessionId: session.sessionId,
    responseStatus: 200,
  });
}

export async function requireAdmin(request: Request, what = "this page"): Promise<SessionUser> {
  const session = await getCurrentSession(request);
  if (!session) {
    const worthRecording = await consumeRateLimits([
      { limit: SIGNED_OUT_EVENTS_PER_CLIENT, key: clientIp(request) ?? "unknown" },
      { limit: SIGNED_OUT_EVENTS_IN_ALL, key: "all" },
    ]);
    if (worthRecording.allowed) {
      recordSecurityEvent(request, {
        eventType: "unauthorized_access",
        severity: "low",
        responseStatus: 302,
        details: { reason: "signed_out" },
      });
    }
    throw redirect(loginPath(request));
  }
  if (!isAdmin(session.user.id)) {
    recordSecurityEvent(request, {
      eventType: "unauthorized_access",
      severity: "medium",
      userId: session.user.id,
      sessionId: session.sessionId,
      responseStatus: 403,
      details: { reason: "not_admin" },
    });
    const headers = await createToastHeaders({
      title: "Access Denied",
      description: `Admin access required to view ${what}.`,
      variant: "destructive",
    });
    headers.set("Refresh", `${ACCESS_DENIED_REDIRECT_MS / 1000};url=/`);
    throw data({ kind: "access_denied", redirectTo: "/" } satisfies AccessDenied, {
      status: 403,
      headers,
    });
  }
  if (!hasTwoFactor(session.user.id)) {
    // The role takes effect only once the admin has a second factor (docs/decisions/0061-two-factor-sign-in.md).
    throw await redirectWithToast("/profile/two-factor", {
      title: "Set up two-factor sign-in",
      description: `Admins need two-factor sign-in to open ${what}.`,
    });
  }
  if (!isSecondFactorSession(session)) {
    recordSecurityEvent(request, {
      eventType: "unauthorized_access",
      severity: "medium",
      userId: session.user.id,
      sessionId: session.sessionId,
      responseStatus: 302,
      details: { reason: "no_second_factor_session" },
    });
    throw await redirectWithToast(stepUpPath(pathOf(request)), STEP_UP_TOAST);
  }
  await recordAdminAccess(request, session);
  return session.user;
}

export const STEP_UP_TOAST = {
  title: "Confirm it's you",
  description: "Sign in again with your second factor to open the admin pages.",
};

/** The page where a signed-in owner gives a second factor on this session, then goes on to `redirectTo`. */
export function stepUpPath(redirectTo: string) {
  return `/login/step-up?${new URLSearchParams({ redirectTo })}`;
}

/**
 * The outbox (`/dev/outbox`) holds every e-mail written without SMTP, sign-in
 * and password links included. It is open to everyone only for requests from
 * this machine itself (the client address is loopback, as for `npm start` on a
 * laptop), never because of APP_URL; to anyone else, only to admins on a
 * second-factor session (as for requireAdmin). Everyone
 * else gets the 404 of a page that does not exist: it is not advertised.
 */
export async function requireOutboxReader(request: Request) {
  if (isLoopback(clientIp(request))) return;
  const session = await getCurrentSession(request);
  if (
    !session ||
    !isAdmin(session.user.id) ||
    !hasTwoFactor(session.user.id) ||
    !isSecondFactorSession(session)
  ) {
    throw new Response("Not Found", { status: 404 });
  }
}
