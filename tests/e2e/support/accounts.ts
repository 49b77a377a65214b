import crypto from "node:crypto";
import path from "node:path";
import { generateTOTP } from "@epic-web/totp";
import { type BrowserContext, expect, type Page } from "@playwright/test";
import { createCookie } from "@remix-run/node";
import { asc, eq } from "drizzle-orm";
import { openDatabase } from "#db/connection";
import { createFolder, createUser as createUserRow } from "#db/factories";
import { folders, recoveryCodes, sessions, twoFactorSecrets, users } from "#db/schema";
import { cheapPasswordHash } from "#tests/support/cheap-password-hash";

/** The test process's own handle on the server's database file (WAL allows both). */
let database: ReturnType<typeof openDatabase> | null = null;
export function testDb() {
  database ??= openDatabase(path.join(process.env.E2E_DATA_DIR!, "app.db"), { migrate: false });
  return database;
}

export function uniqueEmail(label: string) {
  return `${label}-${crypto.randomBytes(5).toString("hex")}@example.com`.toLowerCase();
}

export const TEST_PASSWORD = "correct horse battery";

/** A verified sender whose password is `password` (a cheap hash: no browser test is about its cost). */
export async function createUser(
  overrides: Partial<typeof users.$inferInsert> & { password?: string } = {},
) {
  const { password = TEST_PASSWORD, ...values } = overrides;
  return createUserRow(testDb(), {
    email: uniqueEmail("sender"),
    passwordHash: cheapPasswordHash(password),
    ...values,
  });
}

export function findUser(email: string) {
  return testDb().select().from(users).where(eq(users.email, email)).get();
}

const sessionCookie = createCookie("thoughtfully_session", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  secrets: [process.env.E2E_SESSION_SECRET!],
});

export type SignInMethod = NonNullable<(typeof sessions.$inferInsert)["signInMethod"]>;

/**
 * Signs a browser context in without the login form: a session row and its
 * signed cookie, exactly what a successful login by `method` would produce
 * (a password by default; admin pages need a second-factor session, see
 * `signInWithSecondFactor`). `database` is the shared test server's unless a
 * test runs a server of its own.
 */
export async function signIn(
  context: BrowserContext,
  userId: number,
  baseURL: string,
  database = testDb(),
  { method = "password" }: { method?: SignInMethod } = {},
) {
  const token = crypto.randomBytes(32).toString("base64url");
  database
    .insert(sessions)
    .values({
      sid: crypto.createHash("sha256").update(token).digest("hex"),
      userId,
      expire: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000),
      signInMethod: method,
    })
    .run();
  const header = await sessionCookie.serialize(token);
  const value = header.split(";")[0]!.split("=").slice(1).join("=");
  await context.addCookies([{ name: "thoughtfully_session", value, url: baseURL }]);
  return { token, cookieValue: value };
}

/** As `signIn`, for a session signed in with an authenticator code: what admin pages ask for. */
export function signInWithSecondFactor(
  context: BrowserContext,
  userId: number,
  baseURL: string,
  database = testDb(),
) {
  return signIn(context, userId, baseURL, database, { method: "totp" });
}

export function createFolderRow(
  userId: number,
  values: Partial<typeof folders.$inferInsert> & { name: string },
) {
  return createFolder(testDb(), userId, values);
}

export function foldersOf(userId: number) {
  return testDb()
    .select()
    .from(folders)
    .where(eq(folders.userId, userId))
    .orderBy(asc(folders.sortOrder), asc(folders.id))
    .all();
}

/**
 * Turns two-factor sign-in on for a user directly, as finishing set-up would
 * (admins need it to open admin pages). Returns the secret, from which
 * `currentCode` makes the authenticator app's code.
 */
export async function enableTwoFactor(userId: number, database = testDb()) {
  const { secret } = await generateTOTP({ period: 30, digits: 6, algorithm: "SHA-1" });
  database.insert(twoFactorSecrets).values({ userId, secret, enabledAt: new Date() }).run();
  return secret;
}

/** The code an authenticator app shows now for `secret`. */
export async function currentCode(secret: string) {
  return (await generateTOTP({ secret, period: 30, digits: 6, algorithm: "SHA-1" })).otp;
}

/** Stores recovery codes for a user as set-up would: SHA-256 of the code without case or dashes. */
export function addRecoveryCodes(userId: number, codes: string[], database = testDb()) {
  const hash = (code: string) =>
    crypto
      .createHash("sha256")
      .update(code.toLowerCase().replace(/[^a-z0-9]/g, ""))
      .digest("hex");
  database
    .insert(recoveryCodes)
    .values(codes.map((code) => ({ userId, codeHash: hash(code) })))
    .run();
}

/**
 * "Confirm it's you" with the password, on the page a sensitive change sent
 * the browser to (docs/decisions/0107-reauthentication-window.md).
 */
export async function confirmWithPassword(page: Page, password = TEST_PASSWORD) {
  await expect(page.getByRole("heading", { name: "Confirm it's you" })).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Confirm with password" }).click();
}

/**
 * Every browser test comes from 127.0.0.1, and sign-up and password resets
 * take ten an hour from one client (docs/decisions/0042-mail-limits.md): a
 * test that asks for such mail through a form forgets this machine's count of
 * it first, so the order the suite runs in cannot decide whether it passes.
 */
export function forgetMailFromThisMachine(...endpoints: ("sign-up" | "password-reset")[]) {
  const forget = testDb().$client.prepare("delete from rate_limits where key like ?");
  for (const endpoint of endpoints) forget.run(`mail:${endpoint}:client:%`);
}
