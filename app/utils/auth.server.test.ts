import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { db } from "#db/client.server";
import { users } from "#db/schema";
import { verifyLogin } from "./auth.server";
import { verifyPassword } from "./password.server";

/** A hash as the app made them before the cost was raised: scrypt N=2^14, r=8, p=1. */
function legacyHash(password: string) {
  const salt = crypto.randomBytes(16);
  const hash = crypto.scryptSync(password, salt, 64, { N: 16384, r: 8, p: 1 });
  return ["scrypt", 16384, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$");
}

function logInForm(email: string, password: string) {
  const form = new FormData();
  form.set("email", email);
  form.set("password", password);
  return form;
}

describe("verifyLogin", () => {
  test("replaces a hash made with the old, cheaper settings at the next successful log-in", async () => {
    const email = "legacy-hash@example.com";
    db.insert(users)
      .values({ email, emailVerified: true, passwordHash: legacyHash("old but right") })
      .run();
    const request = new Request("http://localhost:3000/login", { method: "POST" });
    await verifyLogin(request, logInForm(email, "old but right"));
    const stored = db.select().from(users).where(eq(users.email, email)).get()!.passwordHash!;
    expect(stored.startsWith("scrypt$16384$8$5$")).toBe(true);
    expect(await verifyPassword("old but right", stored)).toBe(true);
  });
});
