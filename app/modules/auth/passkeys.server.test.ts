import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { passkeys, webauthnChallenges } from "#db/schema";
import { createSoftwarePasskey } from "#tests/support/software-passkey";
import { db } from "~/platform/db.server";
import { runInRequestContext } from "~/platform/request-context.server";
import {
  finishRegistration,
  finishSignInWithPasskey,
  listPasskeys,
  registrationOptions,
  removePasskey,
  SIGN_IN_OPTIONS_PER_CLIENT,
  signInOptions,
} from "./passkeys.server";

const ORIGIN = "http://localhost:3000";
let client = 0;

/** A request from a client address of its own, so the per-client limit of one test is not another's. */
function fromNewClient<T>(work: () => Promise<T>) {
  client += 1;
  return runInRequestContext({ peerAddress: `198.51.100.${client}` }, work);
}

/** A request carrying the challenge cookie the server set, as the browser sends it back. */
function answering(setCookie: string) {
  return new Request(`${ORIGIN}/passkeys/sign-in`, {
    method: "POST",
    headers: { Cookie: setCookie.split(";")[0]! },
  });
}

/** A registered software passkey of a new user. */
async function userWithPasskey() {
  const user = createUser(db);
  const key = createSoftwarePasskey(ORIGIN);
  const { options, cookie } = await registrationOptions(user);
  const saved = await finishRegistration(
    answering(cookie),
    user,
    key.register(options.challenge),
    "Key",
  );
  expect(saved).not.toBeNull();
  return { user, key };
}

async function startSignIn(userId: number | null = null) {
  const started = await fromNewClient(() =>
    signInOptions(new Request(`${ORIGIN}/passkeys/sign-in`), userId),
  );
  if (!started) throw new Error("sign-in options refused");
  return started;
}

function storePasskey(userId: number, id: string) {
  db.insert(passkeys)
    .values({ id, userId, publicKey: "AAAA", name: `Key ${id}` })
    .run();
}

test("only its owner lists or removes a passkey", () => {
  const owner = createUser(db);
  const other = createUser(db);
  storePasskey(owner.id, "cred-owner");
  expect(listPasskeys(other.id)).toEqual([]);
  expect(removePasskey(other.id, "cred-owner")).toBe(false);
  expect(listPasskeys(owner.id).map((key) => key.id)).toEqual(["cred-owner"]);
  expect(removePasskey(owner.id, "cred-owner")).toBe(true);
  expect(listPasskeys(owner.id)).toEqual([]);
});

test("registration asks for a discoverable, user-verifying passkey and excludes the user's own", async () => {
  const user = createUser(db);
  storePasskey(user.id, "cred-existing");
  const { options, cookie } = await registrationOptions(user);
  expect(options.rp.id).toBe("localhost");
  expect(options.authenticatorSelection).toMatchObject({
    residentKey: "required",
    userVerification: "required",
  });
  expect(options.excludeCredentials?.map((key) => key.id)).toEqual(["cred-existing"]);
  // The challenge is held on the server; a signed cookie that page scripts cannot read names it.
  expect(cookie).toMatch(/^thoughtfully_webauthn=[^;]+\.[^;]+;/);
  expect(cookie).toMatch(/HttpOnly/);
  const stored = db
    .select()
    .from(webauthnChallenges)
    .where(eq(webauthnChallenges.challenge, options.challenge))
    .get();
  expect(stored).toMatchObject({ purpose: "register", userId: user.id });
  expect(stored!.expiresAt.getTime() - Date.now()).toBeGreaterThan(4 * 60 * 1000);
});

test("sign-in options require user verification and name no account", async () => {
  const { options } = await startSignIn();
  expect(options.userVerification).toBe("required");
  expect(options.allowCredentials ?? []).toEqual([]);
});

test("a registration answer adds its passkey once; the same answer again adds nothing", async () => {
  const user = createUser(db);
  const key = createSoftwarePasskey(ORIGIN);
  const { options, cookie } = await registrationOptions(user);
  const answer = key.register(options.challenge);
  expect(await finishRegistration(answering(cookie), user, answer, "Key")).not.toBeNull();
  expect(await finishRegistration(answering(cookie), user, answer, "Key")).toBeNull();
  expect(listPasskeys(user.id)).toHaveLength(1);
});

test("a sign-in answer signs in once: the same answer posted again is refused", async () => {
  const { user, key } = await userWithPasskey();
  const { options, cookie } = await startSignIn();
  const answer = key.signIn(options.challenge);
  expect(await finishSignInWithPasskey(answering(cookie), answer)).toMatchObject({
    userId: user.id,
  });
  expect(await finishSignInWithPasskey(answering(cookie), answer)).toBeNull();
});

test("a challenge is refused once expired, for another purpose, or for another account", async () => {
  const { user, key } = await userWithPasskey();
  const other = await userWithPasskey();

  const expired = await startSignIn();
  db.update(webauthnChallenges)
    .set({ expiresAt: new Date(Date.now() - 1) })
    .where(eq(webauthnChallenges.challenge, expired.options.challenge))
    .run();
  expect(
    await finishSignInWithPasskey(answering(expired.cookie), key.signIn(expired.options.challenge)),
  ).toBeNull();

  const registration = await registrationOptions(user);
  expect(
    await finishSignInWithPasskey(
      answering(registration.cookie),
      key.signIn(registration.options.challenge),
    ),
  ).toBeNull();

  // Confirming it is them on a signed-in session: only that account's passkeys, on its own challenge.
  const forUser = await startSignIn(user.id);
  expect(forUser.options.allowCredentials?.map((credential) => credential.id)).toEqual([key.id]);
  expect(
    await finishSignInWithPasskey(
      answering(forUser.cookie),
      other.key.signIn(forUser.options.challenge),
      user.id,
    ),
  ).toBeNull();
  const anonymous = await startSignIn();
  expect(
    await finishSignInWithPasskey(
      answering(anonymous.cookie),
      key.signIn(anonymous.options.challenge),
      user.id,
    ),
  ).toBeNull();
  const again = await startSignIn(user.id);
  expect(
    await finishSignInWithPasskey(
      answering(again.cookie),
      key.signIn(again.options.challenge),
      user.id,
    ),
  ).toMatchObject({ userId: user.id });
});

test("expired challenges are deleted when a new one is stored; one open registration per user", async () => {
  const user = createUser(db);
  const stale = await startSignIn();
  db.update(webauthnChallenges)
    .set({ expiresAt: new Date(Date.now() - 1) })
    .where(eq(webauthnChallenges.challenge, stale.options.challenge))
    .run();
  const first = await registrationOptions(user);
  const second = await registrationOptions(user);
  const challenges = db
    .select()
    .from(webauthnChallenges)
    .all()
    .map((row) => row.challenge);
  expect(challenges).not.toContain(stale.options.challenge);
  expect(challenges).not.toContain(first.options.challenge);
  expect(challenges).toContain(second.options.challenge);
});

test("sign-in options are limited per client address", async () => {
  const request = new Request(`${ORIGIN}/passkeys/sign-in`);
  const answers = await runInRequestContext({ peerAddress: "203.0.113.99" }, async () => {
    const results = [];
    for (let i = 0; i <= SIGN_IN_OPTIONS_PER_CLIENT.points; i += 1) {
      results.push(await signInOptions(request));
    }
    return results;
  });
  expect(answers.slice(0, -1).every((answer) => answer !== null)).toBe(true);
  expect(answers.at(-1)).toBeNull();
});
