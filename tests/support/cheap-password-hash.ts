import crypto from "node:crypto";

/**
 * A real scrypt hash of `password` at a small cost (N=2^10, r=8, p=1), in the stored format
 * of app/modules/auth/password.server.ts. A stored hash carries its own settings, so a
 * check against it takes about a millisecond instead of a quarter of a second: for tests that
 * count or gate attempts, not for tests of the hashing cost
 * (docs/decisions/0118-one-integration-set-up-and-no-waiting.md).
 */
export function cheapPasswordHash(password: string) {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(password, salt, 64, { N: 1024, r: 8, p: 1 });
  return ["scrypt", 1024, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$");
}
