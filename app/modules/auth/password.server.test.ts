import { describe, expect, test } from "vitest";
import { hashPassword, needsRehash, verifyPassword } from "./password.server";

describe("hashPassword / verifyPassword", () => {
  test("a hash verifies against the password it was made from", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(/^scrypt\$16384\$8\$5\$[A-Za-z0-9+/]+={0,2}\$[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(stored.split("$")[5]!, "base64")).toHaveLength(64);
    await expect(verifyPassword("correct horse battery staple", stored)).resolves.toBe(true);
  });

  test("a wrong password does not verify", async () => {
    const stored = await hashPassword("correct horse battery staple");
    await expect(verifyPassword("correct horse battery stapler", stored)).resolves.toBe(false);
    await expect(verifyPassword("", stored)).resolves.toBe(false);
  });

  test.each([
    ["empty", ""],
    ["not scrypt", "bcrypt$2b$10$abcdefghijklmnopqrstuv"],
    ["missing parts", "scrypt$16384$8$1$c2FsdA=="],
    ["N not a power of two", "scrypt$1000$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA=="],
    ["N not a number", "scrypt$abc$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA=="],
    ["N far too large", "scrypt$1073741824$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA=="],
    ["salt not base64", "scrypt$16384$8$1$not*base64$aGFzaGhhc2hoYXNoaGFzaA=="],
    ["empty hash", "scrypt$16384$8$1$c2FsdHNhbHRzYWx0$"],
    ["too many parts", "scrypt$16384$8$1$c2FsdA==$aGFzaA==$extra"],
  ])("a malformed stored value (%s) is rejected, not thrown", async (_label, stored) => {
    await expect(verifyPassword("anything", stored)).resolves.toBe(false);
  });

  test("two hashes of the same password differ (random salt) and both verify", async () => {
    const first = await hashPassword("same password");
    const second = await hashPassword("same password");
    expect(first).not.toBe(second);
    await expect(verifyPassword("same password", first)).resolves.toBe(true);
    await expect(verifyPassword("same password", second)).resolves.toBe(true);
  });

  test("new hashes use OWASP's scrypt cost; older ones are marked for a new hash", async () => {
    const current = await hashPassword("correct horse");
    expect(current.startsWith("scrypt$16384$8$5$")).toBe(true);
    expect(needsRehash(current)).toBe(false);
    const older = current.replace("scrypt$16384$8$5$", "scrypt$16384$8$1$");
    expect(needsRehash(older)).toBe(true);
    expect(needsRehash("not a hash")).toBe(true);
  });
});
