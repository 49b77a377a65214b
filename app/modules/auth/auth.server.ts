import { eq } from "drizzle-orm";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { users } from "#db/schema";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { RuleError } from "~/platform/errors.server";
import { clientIp } from "~/platform/request-info.server";
import { recordSecurityEvent } from "~/platform/security-events.server";
import {
  recordSuccessfulLogin,
  THROTTLED_MESSAGE,
  takeLoginAttempt,
} from "./login-throttle.server";
import { hashPassword, needsRehash, verifyPassword } from "./password.server";
import { revokeUserSessions, type SessionUser } from "./session.server";
import { LoginSchema } from "./user-validation";

export const INVALID_LOGIN_MESSAGE = "Invalid email or password";

/** A login refused for a reason the form should show (never which part was wrong). */
export class LoginError extends RuleError {}

/** Spent on unknown e-mails too, so timing does not tell which addresses have accounts. */
const decoyHash = hashPassword("decoy password that matches nothing");

export async function verifyLogin(request: Request, form: FormData): Promise<SessionUser> {
  const parsed = LoginSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw new LoginError(INVALID_LOGIN_MESSAGE);
  const { email, password } = parsed.data;
  const ip = clientIp(request);
  const attempt = await takeLoginAttempt(email, ip);
  if (!attempt.allowed) {
    recordSecurityEvent(request, {
      eventType: "rate_limit_exceeded",
      severity: "medium",
      responseStatus: 429,
      details: { email, reason: "login_throttled", retryAfterSeconds: attempt.retryAfterSeconds },
    });
    throw new LoginError(THROTTLED_MESSAGE);
  }
  const user = db.select().from(users).where(eq(users.email, email)).get();
  const valid = user?.passwordHash
    ? await verifyPassword(password, user.passwordHash)
    : await verifyPassword(password, await decoyHash).then(() => false);
  if (!user || !valid) {
    recordSecurityEvent(request, {
      eventType: "failed_login",
      severity: "low",
      userId: user?.id ?? null,
      responseStatus: 400,
      details: { email, reason: user ? "wrong_password" : "unknown_email" },
    });
    throw new LoginError(INVALID_LOGIN_MESSAGE);
  }
  await recordSuccessfulLogin(email, ip);
  if (needsRehash(user.passwordHash!)) {
    const passwordHash = await hashPassword(password);
    db.update(users).set({ passwordHash }).where(eq(users.id, user.id)).run();
  }
  return user;
}

export type OAuthProfile = {
  subject: string;
  email: string;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
};

export const oauthConfigured = Boolean(
  env.OAUTH_CLIENT_ID &&
    env.OAUTH_CLIENT_SECRET &&
    env.OAUTH_AUTHORIZATION_URL &&
    env.OAUTH_TOKEN_URL &&
    env.OAUTH_USERINFO_URL,
);

async function fetchOAuthProfile(accessToken: string): Promise<OAuthProfile> {
  const response = await fetch(env.OAUTH_USERINFO_URL!, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json" },
  });
  if (!response.ok) throw new LoginError("We couldn't read your profile from the provider.");
  const info = (await response.json()) as Record<string, unknown>;
  const email = typeof info.email === "string" ? info.email.trim().toLowerCase() : "";
  const subject = String(info.sub ?? info.id ?? "");
  if (!email || !subject) throw new LoginError("The provider did not share an e-mail address.");
  const fullName = typeof info.name === "string" ? info.name.trim() : "";
  return {
    subject,
    email,
    emailVerified: info.email_verified === true || info.email_verified === "true",
    firstName:
      (typeof info.given_name === "string" && info.given_name) || fullName.split(" ")[0] || null,
    lastName:
      (typeof info.family_name === "string" && info.family_name) ||
      fullName.split(" ").slice(1).join(" ") ||
      null,
  };
}

/**
 * Third-party sign-in links to an existing account only when the provider
 * vouches for the e-mail address; otherwise someone could claim an address
 * they do not own and take over its account. And when the existing account's
 * address was never verified, whoever signed up with it may not be its owner:
 * linking first removes that account's password and ends its sessions, so the
 * address's owner, proven by the provider, is the only one left with a way in.
 */
export function findOrCreateOAuthUser(profile: OAuthProfile, timeZone = "UTC"): SessionUser {
  const provider = env.OAUTH_PROVIDER_NAME;
  const existing = db.select().from(users).where(eq(users.email, profile.email)).get();
  if (existing) {
    if (existing.authProvider === provider && existing.authProviderId === profile.subject) {
      return existing;
    }
    if (!profile.emailVerified) {
      throw new LoginError(
        `An account with this e-mail already exists. Log in with your password, then try ${provider} again.`,
      );
    }
    const unproven = !existing.emailVerified;
    const linked = db
      .update(users)
      .set({
        authProviderId: profile.subject,
        emailVerified: true,
        ...(unproven ? { passwordHash: null } : {}),
      })
      .where(eq(users.id, existing.id))
      .returning()
      .get();
    if (unproven) revokeUserSessions(existing.id);
    return linked;
  }
  return db
    .insert(users)
    .values({
      email: profile.email,
      firstName: profile.firstName?.slice(0, 50) ?? null,
      lastName: profile.lastName?.slice(0, 50) ?? null,
      authProvider: provider,
      authProviderId: profile.subject,
      emailVerified: profile.emailVerified,
      timeZone,
    })
    .returning()
    .get();
}

export const authenticator = new Authenticator<SessionUser>();

authenticator.use(new FormStrategy(({ form, request }) => verifyLogin(request, form)), "password");

// Loaded only when configured: most deployments have no provider, and the
// package is a noticeable part of a cold start (docs/decisions/0083-one-build.md).
if (oauthConfigured) {
  const { OAuth2Strategy } = await import("remix-auth-oauth2");
  authenticator.use(
    new OAuth2Strategy(
      {
        cookie: {
          name: "thoughtfully_oauth",
          path: "/auth/oauth",
          sameSite: "Lax",
          httpOnly: true,
          ...(env.isHttps ? { secure: true as const } : {}),
        },
        clientId: env.OAUTH_CLIENT_ID!,
        clientSecret: env.OAUTH_CLIENT_SECRET!,
        authorizationEndpoint: env.OAUTH_AUTHORIZATION_URL!,
        tokenEndpoint: env.OAUTH_TOKEN_URL!,
        redirectURI: `${env.APP_URL}/auth/oauth/callback`,
        scopes: env.OAUTH_SCOPES.split(/[\s,]+/).filter(Boolean),
      },
      async ({ tokens }) => findOrCreateOAuthUser(await fetchOAuthProfile(tokens.accessToken())),
    ),
    "oauth",
  );
}
