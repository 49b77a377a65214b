import crypto from "node:crypto";

/** A shared secret compared in constant time; hashed first, so the time is the same whatever the lengths. */
export function sameSecret(given: string, expected: string) {
  const digest = (text: string) => crypto.createHash("sha256").update(text).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}
