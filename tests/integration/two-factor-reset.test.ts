import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { securityEvents, twoFactorSecrets } from "#db/schema";
import { hasTwoFactor } from "~/modules/auth/two-factor.server";
import { db } from "~/platform/db.server";

/** `npm run two-factor:reset` as the operator runs it: a process of its own on the same database. */
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

function runReset(...args: string[]) {
  return spawnSync(process.execPath, ["build/scripts/two-factor-reset.js", ...args], {
    cwd: repoRoot,
    env: process.env,
    encoding: "utf8",
  });
}

test("the operator turns off a lost second factor, with a reason, and it is recorded", () => {
  const user = createUser(db, { email: "lost-phone@example.com" });
  db.insert(twoFactorSecrets)
    .values({ userId: user.id, secret: "JBSWY3DPEHPK3PXP", enabledAt: new Date() })
    .run();
  expect(hasTwoFactor(user.id)).toBe(true);

  const withoutReason = runReset("lost-phone@example.com");
  expect(withoutReason.status).toBe(2);
  expect(withoutReason.stderr).toContain("--reason");
  expect(hasTwoFactor(user.id)).toBe(true);

  expect(runReset("nobody@example.com", "--reason", "x").status).toBe(1);

  const reset = runReset("lost-phone@example.com", "--reason", "video call, ID shown");
  expect(reset.status, reset.stderr).toBe(0);
  expect(reset.stdout).toContain("Two-factor sign-in is off for lost-phone@example.com");
  expect(hasTwoFactor(user.id)).toBe(false);
  expect(
    db.select().from(securityEvents).where(eq(securityEvents.userId, user.id)).get(),
  ).toMatchObject({ eventType: "two_factor_disabled", endpoint: "cli:two-factor:reset" });
});
