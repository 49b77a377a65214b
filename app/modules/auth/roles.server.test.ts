import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { securityEvents, sessions, twoFactorSecrets, userRoles } from "#db/schema";
import { db } from "~/platform/db.server";
import { runInRequestContext } from "~/platform/request-context.server";
import {
  findUserIdByEmail,
  grantRole,
  isAdmin,
  listAdmins,
  requireAdmin,
  revokeRole,
  roleHistory,
} from "./roles.server";
import { createSession, type SignInMethod } from "./session.server";

async function signedInRequest(
  userId: number,
  path = "/admin/dashboard",
  method: SignInMethod = "totp",
  init: RequestInit = {},
) {
  const setCookie = await createSession(userId, new Request("http://localhost:3000/login"), method);
  return new Request(`http://localhost:3000${path}`, {
    ...init,
    headers: { Cookie: setCookie.split(";")[0]! },
  });
}

function enableTwoFactor(userId: number) {
  db.insert(twoFactorSecrets)
    .values({ userId, secret: "JBSWY3DPEHPK3PXP", enabledAt: new Date() })
    .run();
}

function unauthorizedEvents() {
  return db
    .select()
    .from(securityEvents)
    .where(eq(securityEvents.eventType, "unauthorized_access"))
    .all();
}

describe("grant and revoke", () => {
  test("keep the history: who, when and why", () => {
    const granter = createUser(db);
    const subject = createUser(db);
    expect(isAdmin(subject.id)).toBe(false);
    expect(grantRole(subject.id, "admin", { grantedBy: granter.id, reason: " on call " })).toBe(
      "granted",
    );
    expect(grantRole(subject.id, "admin", { grantedBy: granter.id })).toBe("unchanged");
    expect(isAdmin(subject.id)).toBe(true);
    expect(listAdmins().map((admin) => admin.email)).toContain(subject.email);

    expect(revokeRole(subject.id, "admin", { revokedBy: granter.id, reason: "left" })).toBe(
      "revoked",
    );
    expect(revokeRole(subject.id, "admin")).toBe("unchanged");
    expect(isAdmin(subject.id)).toBe(false);

    expect(grantRole(subject.id, "admin", { reason: "back", source: "cli" })).toBe("granted");
    const rows = db
      .select()
      .from(userRoles)
      .where(eq(userRoles.userId, subject.id))
      .orderBy(userRoles.id)
      .all();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      isActive: false,
      grantedBy: granter.id,
      grantReason: "on call",
      revokedBy: granter.id,
      revokeReason: "left",
      metadata: { source: "dashboard" },
    });
    expect(rows[0]?.revokedAt).toBeInstanceOf(Date);
    expect(rows[1]).toMatchObject({
      isActive: true,
      grantedBy: null,
      grantReason: "back",
      metadata: { source: "cli" },
    });
    const history = roleHistory().filter((entry) => entry.email === subject.email);
    expect(history.map((entry) => [entry.isActive, entry.grantedBy, entry.revokedBy])).toEqual(
      expect.arrayContaining([
        [false, granter.email, granter.email],
        [true, null, null],
      ]),
    );
  });

  test("finds users by e-mail whatever the case", () => {
    const subject = createUser(db);
    expect(findUserIdByEmail(subject.email.toUpperCase())).toBe(subject.id);
    expect(findUserIdByEmail("nobody@example.com")).toBeNull();
  });
});

describe("requireAdmin", () => {
  test("sends an admin without two-factor sign-in to set it up, then lets them through", async () => {
    const admin = createUser(db);
    grantRole(admin.id, "admin");
    const thrown = await requireAdmin(await signedInRequest(admin.id)).catch(
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(302);
    expect((thrown as Response).headers.get("Location")).toBe("/profile/two-factor");

    enableTwoFactor(admin.id);
    const user = await requireAdmin(await signedInRequest(admin.id));
    expect(user.id).toBe(admin.id);
  });

  test.each(["totp", "recovery-code", "passkey"] as const)(
    "lets an admin in on a session signed in with %s",
    async (method) => {
      const admin = createUser(db);
      grantRole(admin.id, "admin");
      enableTwoFactor(admin.id);
      const user = await requireAdmin(await signedInRequest(admin.id, "/admin/security", method));
      expect(user.id).toBe(admin.id);
    },
  );

  test.each([
    ["password", "GET"],
    ["password", "POST"],
    ["oauth", "GET"],
    ["email-link", "POST"],
    [null, "GET"],
    [null, "POST"],
  ] as const)(
    "sends an admin on a %s session (%s) to confirm with a second factor",
    async (method, verb) => {
      const admin = createUser(db);
      grantRole(admin.id, "admin");
      enableTwoFactor(admin.id);
      const request = await signedInRequest(admin.id, "/admin/dashboard?tab=security", "totp", {
        method: verb,
      });
      // Null: a session from before the sign-in method was recorded.
      db.update(sessions).set({ signInMethod: method }).where(eq(sessions.userId, admin.id)).run();
      const thrown = await requireAdmin(request).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(Response);
      expect((thrown as Response).status).toBe(302);
      expect((thrown as Response).headers.get("Location")).toBe(
        "/login/step-up?redirectTo=%2Fadmin%2Fdashboard%3Ftab%3Dsecurity",
      );
      expect(unauthorizedEvents().at(-1)).toMatchObject({
        userId: admin.id,
        requestMethod: verb,
        details: { reason: "no_second_factor_session" },
      });
    },
  );

  test("records an admin's access once per screen every 10 minutes", async () => {
    const admin = createUser(db);
    grantRole(admin.id, "admin");
    enableTwoFactor(admin.id);
    const accessEvents = () =>
      db
        .select()
        .from(securityEvents)
        .where(eq(securityEvents.userId, admin.id))
        .all()
        .filter((event) => event.eventType === "admin_access");
    await requireAdmin(await signedInRequest(admin.id, "/admin/security"));
    await requireAdmin(await signedInRequest(admin.id, "/admin/security"));
    expect(accessEvents()).toHaveLength(1);
    expect(accessEvents()[0]).toMatchObject({
      endpoint: "/admin/security",
      requestMethod: "GET",
      severity: "low",
    });
    await requireAdmin(await signedInRequest(admin.id, "/admin/dashboard"));
    expect(accessEvents().map((event) => event.endpoint)).toEqual([
      "/admin/security",
      "/admin/dashboard",
    ]);
  });

  test("sends a signed-out visitor to log in, and records it", async () => {
    const before = unauthorizedEvents().length;
    const thrown = await requireAdmin(
      new Request("http://localhost:3000/admin/security?x=1"),
    ).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Response);
    const response = thrown as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login?redirectTo=%2Fadmin%2Fsecurity%3Fx%3D1");
    // A browser whose session has ended is told so.
    const expired = await requireAdmin(
      new Request("http://localhost:3000/admin/security", {
        headers: { Cookie: "thoughtfully_session=ended" },
      }),
    ).catch((error: unknown) => error);
    expect((expired as Response).headers.get("Location")).toBe(
      "/login?reason=session_expired&redirectTo=%2Fadmin%2Fsecurity",
    );
    const events = unauthorizedEvents();
    expect(events).toHaveLength(before + 2);
    expect(events.at(-2)).toMatchObject({
      userId: null,
      endpoint: "/admin/security",
      responseStatus: 302,
      details: { reason: "signed_out" },
    });
  });

  test("signed-out visits cannot grow security_events without bound", async () => {
    const before = unauthorizedEvents().length;
    for (let i = 0; i < 30; i += 1) {
      await runInRequestContext({ peerAddress: "198.51.100.30" }, () =>
        requireAdmin(new Request("http://localhost:3000/admin/dashboard")).catch(() => null),
      );
    }
    expect(unauthorizedEvents().length - before).toBe(10);
    for (let i = 0; i < 150; i += 1) {
      await runInRequestContext({ peerAddress: `198.51.100.${100 + (i % 100)}` }, () =>
        requireAdmin(new Request("http://localhost:3000/admin/dashboard")).catch(() => null),
      );
    }
    expect(unauthorizedEvents().length - before).toBeLessThanOrEqual(100);
  });

  test("refuses a signed-in user with 403, a Refresh to / and a security event", async () => {
    const user = createUser(db);
    const before = unauthorizedEvents().length;
    const request = await signedInRequest(user.id);
    const thrown = (await runInRequestContext({ peerAddress: "203.0.113.7" }, () =>
      requireAdmin(request),
    ).catch((error: unknown) => error)) as { init: ResponseInit; data: unknown };
    expect(thrown.init.status).toBe(403);
    expect(new Headers(thrown.init.headers).get("Refresh")).toBe("1.5;url=/");
    expect(thrown.data).toEqual({ kind: "access_denied", redirectTo: "/" });
    const events = unauthorizedEvents();
    expect(events).toHaveLength(before + 1);
    expect(events.at(-1)).toMatchObject({
      userId: user.id,
      ipAddress: "203.0.113.7",
      endpoint: "/admin/dashboard",
      requestMethod: "GET",
      responseStatus: 403,
      severity: "medium",
    });
    expect(db.select().from(sessions).where(eq(sessions.userId, user.id)).all()).toHaveLength(1);
  });
});
