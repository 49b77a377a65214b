import { expect, test } from "vitest";
import { runInRequestContext } from "~/platform/request-context.server";

/**
 * The outbox check for an APP_URL set by the calling test file before any
 * module of ours reads the environment: from another machine admins read it
 * and everyone else gets a 404; from loopback it is open.
 */
export function testOutboxOpenToAdminsOnly(appUrl: string) {
  test("opens the outbox to admins only; everyone else gets a 404", async () => {
    const { db } = await import("~/platform/db.server");
    const { twoFactorSecrets, users } = await import("#db/schema");
    const { grantRole, requireOutboxReader } = await import("~/modules/auth/roles.server");
    const { createSession } = await import("~/modules/auth/session.server");

    const createUser = (email: string) =>
      db.insert(users).values({ email, emailVerified: true }).returning().get();
    async function statusFor(
      userId?: number,
      peerAddress = "203.0.113.20",
      method: "password" | "totp" = "totp",
    ) {
      const headers = new Headers();
      if (userId !== undefined) {
        const setCookie = await createSession(userId, new Request(`${appUrl}/`), method);
        headers.set("Cookie", setCookie.split(";")[0]!);
      }
      const request = new Request(`${appUrl}/dev/outbox`, { headers });
      const thrown = await runInRequestContext({ peerAddress }, () =>
        requireOutboxReader(request),
      ).catch((error: unknown) => error);
      return thrown instanceof Response ? thrown.status : "open";
    }

    const admin = createUser("outbox-admin@example.com");
    grantRole(admin.id, "admin");
    // An admin's role takes effect once two-factor sign-in is on.
    expect(await statusFor(admin.id)).toBe(404);
    db.insert(twoFactorSecrets)
      .values({ userId: admin.id, secret: "JBSWY3DPEHPK3PXP", enabledAt: new Date() })
      .run();
    const sender = createUser("outbox-sender@example.com");
    expect(await statusFor(admin.id)).toBe("open");
    // Only on a session signed in with the second factor.
    expect(await statusFor(admin.id, "203.0.113.20", "password")).toBe(404);
    expect(await statusFor(sender.id)).toBe(404);
    expect(await statusFor()).toBe(404);
    // From this machine itself (`npm start` on a laptop), whatever APP_URL says.
    expect(await statusFor(undefined, "127.0.0.1")).toBe("open");
    expect(await statusFor(undefined, "::1")).toBe("open");
  });
}
