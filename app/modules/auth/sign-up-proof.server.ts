import crypto from "node:crypto";
import { createCookie } from "@remix-run/node";
import { env } from "~/platform/env.server";
import { z } from "~/platform/zod";

/**
 * The browser that signed up, proven by a cookie it got at sign-up: pressing
 * "Verify my email" there signs the person in; anywhere else the link only
 * verifies (docs/decisions/0140-sign-up-that-signs-you-in.md). The cookie
 * also lets "Check your email" name the address it was sent to.
 *
 * Its proof is an HMAC of the new account's id and address, given only to
 * the browser whose sign-up created the account (and so chose its password).
 * A sign-up of an address that already has an account gets random bytes of
 * the same shape, so the cookie tells nothing about who has an account, and
 * that browser can never be signed in to the existing one.
 */
export const SIGN_UP_PROOF_TTL_MS = 60 * 60 * 1000;

const proofCookie = createCookie(
  env.isHttps ? "__Host-thoughtfully_sign_up" : "thoughtfully_sign_up",
  {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: env.isHttps,
    secrets: [env.SESSION_SECRET],
    maxAge: SIGN_UP_PROOF_TTL_MS / 1000,
  },
);

const ProofSchema = z.object({ email: z.string(), proof: z.string(), expiresAt: z.number() });

function proofFor(account: { id: number; email: string }) {
  return crypto
    .createHmac("sha256", env.SESSION_SECRET)
    .update(`sign-up:${account.id}:${account.email}`)
    .digest("base64url");
}

/** The Set-Cookie header for a sign-up of `email`; `createdUserId` is null when the address already had an account. */
export function signUpProofCookie(email: string, createdUserId: number | null) {
  const proof =
    createdUserId === null
      ? crypto.randomBytes(32).toString("base64url")
      : proofFor({ id: createdUserId, email });
  return proofCookie.serialize({
    email,
    proof,
    expiresAt: Date.now() + SIGN_UP_PROOF_TTL_MS,
  } satisfies z.infer<typeof ProofSchema>);
}

async function readProof(request: Request) {
  const parsed = ProofSchema.safeParse(await proofCookie.parse(request.headers.get("Cookie")));
  return parsed.success && parsed.data.expiresAt > Date.now() ? parsed.data : null;
}

/** The address this browser signed up with, while its cookie lasts. */
export async function signedUpEmail(request: Request) {
  return (await readProof(request))?.email ?? null;
}

/** Whether this browser's sign-up created `account`. */
export async function signedUpHere(request: Request, account: { id: number; email: string }) {
  const held = await readProof(request);
  if (!held || held.email !== account.email) return false;
  const expected = Buffer.from(proofFor(account));
  const given = Buffer.from(held.proof);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** Spent once the account it proves is verified and signed in. */
export function clearSignUpProofCookie() {
  return proofCookie.serialize("", { maxAge: 0 });
}
