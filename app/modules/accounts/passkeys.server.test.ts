import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { passkeys } from "#db/schema";
import { db } from "~/platform/db.server";
import { listPasskeys, registrationOptions, removePasskey, signInOptions } from "./passkeys.server";

let counter = 0;
function newUser() {
  counter += 1;
  return createUser(db, { email: `passkeys-${counter}@example.com`, firstName: "Ada" });
}

function storePasskey(userId: number, id: string) {
  db.insert(passkeys)
    .values({ id, userId, publicKey: "AAAA", name: `Key ${id}` })
    .run();
}

test("only its owner lists or removes a passkey", () => {
  const owner = newUser();
  const other = newUser();
  storePasskey(owner.id, "cred-owner");
  expect(listPasskeys(other.id)).toEqual([]);
  expect(removePasskey(other.id, "cred-owner")).toBe(false);
  expect(listPasskeys(owner.id).map((key) => key.id)).toEqual(["cred-owner"]);
  expect(removePasskey(owner.id, "cred-owner")).toBe(true);
  expect(listPasskeys(owner.id)).toEqual([]);
});

test("registration asks for a discoverable, user-verifying passkey and excludes the user's own", async () => {
  const user = newUser();
  storePasskey(user.id, "cred-existing");
  const { options, cookie } = await registrationOptions(user);
  expect(options.rp.id).toBe("localhost");
  expect(options.authenticatorSelection).toMatchObject({
    residentKey: "required",
    userVerification: "required",
  });
  expect(options.excludeCredentials?.map((key) => key.id)).toEqual(["cred-existing"]);
  // The challenge travels in a signed cookie that page scripts cannot read.
  expect(cookie).toMatch(/^thoughtfully_webauthn=[^;]+\.[^;]+;/);
  expect(cookie).toMatch(/HttpOnly/);
});

test("sign-in options require user verification and name no account", async () => {
  const { options } = await signInOptions();
  expect(options.userVerification).toBe("required");
  expect(options.allowCredentials ?? []).toEqual([]);
});
