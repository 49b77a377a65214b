import { createCookie, redirect } from "@remix-run/node";
import { eq } from "drizzle-orm";
import { twoFactorSecrets, users } from "#db/schema";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { safeRedirectPath } from "~/platform/redirect";
import { z } from "~/platform/zod";
import {
  createSession,
  type SecondFactorMethod,
  type SessionUser,
  type SignInMethod,
} from "./session.server";

/**
 * The step between a right password (or third-party sign-in) and a session,
 * for accounts with two-factor sign-in. No session exists until the code
 * passes: the browser holds only a short-lived signed "pending" cookie naming
 * the account. "Trust this device" is a second signed cookie, bound to the
 * account's current enrolment and security stamp, so turning two-factor off
 * (or setting it up again) or resetting the password ends every trusted
 * device. docs/decisions/0061-two-factor-sign-in.md and
 * docs/decisions/0108-password-reset-evicts-everyone.md.
 */
export const PENDING_TTL_MS = 10 * 60 * 1000;
export const TRUST_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const cookieOptions = {
  httpOnly: true,
  sameSite: "lax" as const,
  path: "/",
  secure: env.isHttps,
  secrets: [env.SESSION_SECRET],
};

const pendingCookie = createCookie(
  env.isHttps ? "__Host-thoughtfully_2fa_pending" : "thoughtfully_2fa_pending",
  { ...cookieOptions, maxAge: PENDING_TTL_MS / 1000 },
);

const trustCookie = createCookie(
  env.isHttps ? "__Host-thoughtfully_2fa_trust" : "thoughtfully_2fa_trust",
  { ...cookieOptions, maxAge: TRUST_TTL_MS / 1000 },
);

const PendingSchema = z.object({
  userId: z.number().int(),
  redirectTo: z.string(),
  expiresAt: z.number(),
});
const TrustSchema = z.object({
  userId: z.number().int(),
  enrolledAt: z.number(),
  stamp: z.string(),
  expiresAt: z.number(),
});

function enrolledAt(userId: number) {
  return (
    db
      .select({ enabledAt: twoFactorSecrets.enabledAt })
      .from(twoFactorSecrets)
      .where(eq(twoFactorSecrets.userId, userId))
      .get()?.enabledAt ?? null
  );
}

function securityStamp(userId: number) {
  return (
    db.select({ stamp: users.securityStamp }).from(users).where(eq(users.id, userId)).get()
      ?.stamp ?? null
  );
}

async function trustsThisDevice(request: Request, userId: number, enrolled: Date) {
  const parsed = TrustSchema.safeParse(await trustCookie.parse(request.headers.get("Cookie")));
  return (
    parsed.success &&
    parsed.data.userId === userId &&
    parsed.data.enrolledAt === enrolled.getTime() &&
    parsed.data.stamp === securityStamp(userId) &&
    parsed.data.expiresAt > Date.now()
  );
}

/**
 * After the first factor (`method`): a session and a redirect for an account
 * without two-factor sign-in (or on a device it trusts); otherwise the
 * pending cookie and a redirect to the code step. A trusted device skips the
 * code but the session is still a `method` one: it does not open admin pages
 * (docs/decisions/0104-admin-needs-a-second-factor-session.md).
 */
export async function continueSignIn(
  request: Request,
  user: SessionUser,
  redirectTo: string | null | undefined,
  method: Extract<SignInMethod, "password" | "oauth">,
) {
  const target = safeRedirectPath(redirectTo);
  const enrolled = enrolledAt(user.id);
  if (!enrolled || (await trustsThisDevice(request, user.id, enrolled))) {
    return redirect(target, {
      headers: { "Set-Cookie": await createSession(user.id, request, method) },
    });
  }
  const pending = await pendingCookie.serialize({
    userId: user.id,
    redirectTo: target,
    expiresAt: Date.now() + PENDING_TTL_MS,
  } satisfies z.infer<typeof PendingSchema>);
  return redirect("/login/two-factor", { headers: { "Set-Cookie": pending } });
}

/** The account waiting for its code, or null when there is none or it has expired. */
export async function readPendingSignIn(request: Request) {
  const parsed = PendingSchema.safeParse(await pendingCookie.parse(request.headers.get("Cookie")));
  if (!parsed.success || parsed.data.expiresAt <= Date.now()) return null;
  if (!enrolledAt(parsed.data.userId)) return null;
  return parsed.data;
}

/**
 * The second factor (`method`) passed: the session starts, the pending cookie
 * goes, and the device is trusted if asked.
 */
export async function finishSignIn(
  request: Request,
  pending: { userId: number; redirectTo: string },
  { trustDevice, method }: { trustDevice: boolean; method: SecondFactorMethod },
) {
  const headers = new Headers();
  headers.append("Set-Cookie", await createSession(pending.userId, request, method));
  headers.append("Set-Cookie", await pendingCookie.serialize("", { maxAge: 0 }));
  const enrolled = enrolledAt(pending.userId);
  const stamp = securityStamp(pending.userId);
  if (trustDevice && enrolled && stamp !== null) {
    headers.append(
      "Set-Cookie",
      await trustCookie.serialize({
        userId: pending.userId,
        enrolledAt: enrolled.getTime(),
        stamp,
        expiresAt: Date.now() + TRUST_TTL_MS,
      } satisfies z.infer<typeof TrustSchema>),
    );
  }
  return headers;
}
