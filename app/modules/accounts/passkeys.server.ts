import { createCookie } from "@remix-run/node";
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { passkeys } from "#db/schema";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import type { SessionUser } from "./session.server";

/**
 * Passkeys with @simplewebauthn/server. The relying party is APP_URL's host;
 * each ceremony's challenge lives in a signed cookie for five minutes, so a
 * response is checked against the challenge this browser was given. A
 * passkey asks its device for the user's PIN or biometrics, so it signs in
 * alone: it is both factors (docs/decisions/0070-passkeys.md).
 */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
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

const ChallengeSchema = z.object({
  challenge: z.string(),
  purpose: z.enum(["register", "sign-in"]),
  userId: z.number().int().nullable(),
  expiresAt: z.number(),
});
type Challenge = z.infer<typeof ChallengeSchema>;

async function readChallenge(request: Request, purpose: Challenge["purpose"]) {
  const parsed = ChallengeSchema.safeParse(
    await challengeCookie.parse(request.headers.get("Cookie")),
  );
  if (!parsed.success || parsed.data.purpose !== purpose || parsed.data.expiresAt <= Date.now()) {
    return null;
  }
  return parsed.data;
}

const clearChallenge = () => challengeCookie.serialize("", { maxAge: 0 });

function saveChallenge(challenge: Omit<Challenge, "expiresAt">) {
  return challengeCookie.serialize({ ...challenge, expiresAt: Date.now() + CHALLENGE_TTL_MS });
}

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
  return {
    options,
    cookie: await saveChallenge({
      challenge: options.challenge,
      purpose: "register",
      userId: user.id,
    }),
  };
}

/** Checks the browser's answer and stores the passkey; null when it does not verify. */
export async function finishRegistration(
  request: Request,
  user: SessionUser,
  response: RegistrationResponseJSON,
  name: string,
) {
  const challenge = await readChallenge(request, "register");
  if (!challenge || challenge.userId !== user.id) return null;
  const rp = relyingParty();
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge.challenge,
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

/** Options for `startAuthentication`: any passkey of this site (the device offers its own). */
export async function signInOptions() {
  const rp = relyingParty();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: "required",
  });
  return {
    options,
    cookie: await saveChallenge({ challenge: options.challenge, purpose: "sign-in", userId: null }),
  };
}

/** The account whose passkey signed the challenge, or null. */
export async function finishSignInWithPasskey(
  request: Request,
  response: AuthenticationResponseJSON,
) {
  const challenge = await readChallenge(request, "sign-in");
  if (!challenge) return null;
  const stored = db.select().from(passkeys).where(eq(passkeys.id, response.id)).get();
  if (!stored) return null;
  const rp = relyingParty();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge.challenge,
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
