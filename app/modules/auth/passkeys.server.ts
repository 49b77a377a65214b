import { createCookie } from "@remix-run/node";
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, desc, eq, lte } from "drizzle-orm";
import { passkeys, webauthnChallenges } from "#db/schema";
import { db, writeTransaction } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { consumeRateLimits, type RateLimit } from "~/platform/rate-limit.server";
import { clientIp } from "~/platform/request-info.server";
import { z } from "~/platform/zod";
import type { SessionUser } from "./session.server";

/**
 * Passkeys with @simplewebauthn/server. The relying party is APP_URL's host.
 * Each ceremony's challenge is held on the server (`webauthn_challenges`) for
 * five minutes and deleted by the answer that uses it, so a signed response
 * works once; a signed cookie binds it to the browser it was given to
 * (docs/decisions/0105-passkey-challenges-held-on-the-server.md). A passkey
 * asks its device for the user's PIN or biometrics, so it signs in alone: it
 * is both factors (docs/decisions/0070-passkeys.md).
 */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/**
 * Loaded at the first ceremony, not at every start: the library and its
 * cryptography packages were the largest part of a cold start's module loading
 * (docs/decisions/0083-one-build.md).
 */
const webauthn = () => import("@simplewebauthn/server");
const relyingParty = () => {
  const url = new URL(env.APP_URL);
  return { id: url.hostname, origin: url.origin, name: "Thoughtfully" };
};

const challengeCookie = createCookie(
  env.isHttps ? "__Host-thoughtfully_webauthn" : "thoughtfully_webauthn",
  {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: env.isHttps,
    secrets: [env.SESSION_SECRET],
    maxAge: CHALLENGE_TTL_MS / 1000,
  },
);

type Purpose = (typeof webauthnChallenges.$inferSelect)["purpose"];

/**
 * Anyone can ask for sign-in options, and each one is a row until it expires:
 * 20 per client address and 5,000 in all every five minutes keep the table
 * small (at most about 5,000 live sign-in rows), at the price of passkey
 * sign-in pausing for everyone while a flood lasts; password and code stay.
 */
export const SIGN_IN_OPTIONS_PER_CLIENT: RateLimit = {
  name: "passkey_options_client",
  points: 20,
  durationSeconds: CHALLENGE_TTL_MS / 1000,
};
export const SIGN_IN_OPTIONS_IN_ALL: RateLimit = {
  name: "passkey_options_all",
  points: 5000,
  durationSeconds: CHALLENGE_TTL_MS / 1000,
};

export const PASSKEY_OPTIONS_THROTTLED =
  "Too many passkey attempts. Please wait a few minutes, or use another way in.";

/**
 * The form every passkey sign-in ceremony posts (signing in, stepping up,
 * confirming it's you): first for options, then with the browser's answer.
 */
export const PasskeyAuthenticationSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("options") }),
  z.object({
    intent: z.literal("verify"),
    response: z.string().max(20_000),
    redirectTo: z.string().optional(),
  }),
]);

/** The browser's answer as posted, or null when it is not JSON. */
export function parseAuthenticationResponse(text: string): AuthenticationResponseJSON | null {
  try {
    return JSON.parse(text) as AuthenticationResponseJSON;
  } catch {
    return null;
  }
}

/** The options answer of a ceremony (for `userId`'s passkeys only, when given), or 429. */
export async function signInOptionsResponse(request: Request, userId: number | null = null) {
  const started = await signInOptions(request, userId);
  if (!started) return Response.json({ error: PASSKEY_OPTIONS_THROTTLED }, { status: 429 });
  return Response.json(
    { options: started.options },
    { headers: { "Set-Cookie": started.cookie, "Cache-Control": "no-store" } },
  );
}

/**
 * Stores a new challenge and returns the cookie naming it. Expired rows go on
 * every write; a new registration replaces the user's unanswered one.
 */
function issueChallenge(challenge: string, purpose: Purpose, userId: number | null) {
  const now = new Date();
  writeTransaction((tx) => {
    tx.delete(webauthnChallenges).where(lte(webauthnChallenges.expiresAt, now)).run();
    if (purpose === "register" && userId !== null) {
      tx.delete(webauthnChallenges)
        .where(
          and(eq(webauthnChallenges.purpose, "register"), eq(webauthnChallenges.userId, userId)),
        )
        .run();
    }
    tx.insert(webauthnChallenges)
      .values({
        challenge,
        purpose,
        userId,
        expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      })
      .run();
  });
  return challengeCookie.serialize(challenge);
}

/**
 * The challenge this browser was given, taken off the server in the same
 * statement that finds it (so of two answers to it, only one gets it), and
 * only if it is for `purpose`, for `userId` (null: a sign-in naming no
 * account) and not expired. Null otherwise; either way it is gone.
 */
async function takeChallenge(request: Request, purpose: Purpose, userId: number | null) {
  const challenge = await challengeCookie.parse(request.headers.get("Cookie"));
  if (typeof challenge !== "string" || challenge.length === 0) return null;
  const row = db
    .delete(webauthnChallenges)
    .where(eq(webauthnChallenges.challenge, challenge))
    .returning()
    .get();
  if (!row || row.purpose !== purpose || row.userId !== userId) return null;
  if (row.expiresAt.getTime() <= Date.now()) return null;
  return row.challenge;
}

const clearChallenge = () => challengeCookie.serialize("", { maxAge: 0 });

export function listPasskeys(userId: number) {
  return db
    .select({
      id: passkeys.id,
      name: passkeys.name,
      createdAt: passkeys.createdAt,
      lastUsedAt: passkeys.lastUsedAt,
    })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(desc(passkeys.createdAt))
    .all();
}

export function removePasskey(userId: number, passkeyId: string) {
  return (
    db
      .delete(passkeys)
      .where(and(eq(passkeys.userId, userId), eq(passkeys.id, passkeyId)))
      .run().changes > 0
  );
}

/** Options for the browser's `startRegistration`, and the cookie holding their challenge. */
export async function registrationOptions(user: SessionUser) {
  const rp = relyingParty();
  const existing = db
    .select({ id: passkeys.id, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.userId, user.id))
    .all();
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: [user.firstName, user.lastName].filter(Boolean).join(" ") || user.email,
    userID: new TextEncoder().encode(`user-${user.id}`),
    attestationType: "none",
    excludeCredentials: existing.map((key) => ({
      id: key.id,
      transports: key.transports as AuthenticatorTransport[],
    })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  return { options, cookie: await issueChallenge(options.challenge, "register", user.id) };
}

/** Checks the browser's answer and stores the passkey; null when it does not verify. */
export async function finishRegistration(
  request: Request,
  user: SessionUser,
  response: RegistrationResponseJSON,
  name: string,
) {
  const challenge = await takeChallenge(request, "register", user.id);
  if (!challenge) return null;
  const rp = relyingParty();
  const { verifyRegistrationResponse } = await webauthn();
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch(() => null);
  if (!verification?.verified) return null;
  const { credential } = verification.registrationInfo;
  db.insert(passkeys)
    .values({
      id: credential.id,
      userId: user.id,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
    })
    .run();
  return { cookie: await clearChallenge() };
}

/**
 * Options for `startAuthentication`, or null when this client (or everyone)
 * has asked for too many. Without `userId`, any passkey of this site (the
 * device offers its own); with it (a signed-in owner confirming it is them),
 * only that account's.
 */
export async function signInOptions(request: Request, userId: number | null = null) {
  const allowed = await consumeRateLimits([
    { limit: SIGN_IN_OPTIONS_PER_CLIENT, key: clientIp(request) ?? "unknown" },
    { limit: SIGN_IN_OPTIONS_IN_ALL, key: "all" },
  ]);
  if (!allowed.allowed) return null;
  const rp = relyingParty();
  const allowCredentials =
    userId === null
      ? undefined
      : db
          .select({ id: passkeys.id, transports: passkeys.transports })
          .from(passkeys)
          .where(eq(passkeys.userId, userId))
          .all()
          .map((key) => ({ id: key.id, transports: key.transports as AuthenticatorTransport[] }));
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: "required",
    allowCredentials,
  });
  return { options, cookie: await issueChallenge(options.challenge, "sign-in", userId) };
}

/**
 * The account whose passkey signed the challenge, or null. With `userId`,
 * the challenge must have been issued for that account and the passkey be
 * one of its own.
 */
export async function finishSignInWithPasskey(
  request: Request,
  response: AuthenticationResponseJSON,
  userId: number | null = null,
) {
  const challenge = await takeChallenge(request, "sign-in", userId);
  if (!challenge) return null;
  const stored = db.select().from(passkeys).where(eq(passkeys.id, response.id)).get();
  if (!stored || (userId !== null && stored.userId !== userId)) return null;
  const rp = relyingParty();
  const { verifyAuthenticationResponse } = await webauthn();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    credential: {
      id: stored.id,
      publicKey: new Uint8Array(Buffer.from(stored.publicKey, "base64url")),
      counter: stored.counter,
      transports: stored.transports as AuthenticatorTransport[],
    },
  }).catch(() => null);
  if (!verification?.verified) return null;
  db.update(passkeys)
    .set({ counter: verification.authenticationInfo.newCounter, lastUsedAt: new Date() })
    .where(eq(passkeys.id, stored.id))
    .run();
  return { userId: stored.userId, cookie: await clearChallenge() };
}
