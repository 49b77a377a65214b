import fs from "node:fs";
import { eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { passkeys, sessions, twoFactorSecrets, users } from "#db/schema";
import { undoCredentialChange } from "~/modules/accounts/credential-undo.server";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { signPayload } from "~/platform/signed-payload.server";
import {
  noticeCredentialChange,
  readUndoToken,
  UNDO_LINK_TTL_MS,
  undoToken,
} from "./credential-notices.server";

/** A sender in Paris: notices give times in the owner's time zone. */
const parisSender = () => createUser(db, { timeZone: "Europe/Paris" });

const request = new Request("http://localhost:3000/account/undo", {
  method: "POST",
  headers: { "User-Agent": "Test Browser 1.0" },
});

async function mailsTo(email: string) {
  await waitForBackgroundWork();
  const found = [];
  for (const file of fs.readdirSync(env.OUTBOX_DIR)) {
    const mail = await simpleParser(fs.readFileSync(`${env.OUTBOX_DIR}/${file}`));
    if ([mail.to].flat().some((address) => address?.text.includes(email))) found.push(mail);
  }
  return found;
}

test("a notice says what, when and from where, with a link that undoes it", async () => {
  const user = parisSender();
  await noticeCredentialChange(
    request,
    user,
    { kind: "passkey-added", name: "Stranger's phone", credential: "cred-1" },
    new Date("2026-11-26T10:00:00Z"),
  );
  const [mail] = await mailsTo(user.email);
  const text = mail?.text?.replace(/\s+/g, " ") ?? "";
  expect(mail?.subject).toBe("A passkey was added to your account");
  expect(text).toContain("“Stranger's phone”");
  expect(text).toContain("Thu 26 Nov 2026, 11:00 (Europe/Paris)");
  expect(text).toContain("Test Browser 1.0");
  const token = decodeURIComponent(/\/account\/undo\?token=([A-Za-z0-9_.%-]+)/.exec(text)![1]!);
  expect(readUndoToken(token)).toMatchObject({
    user: user.id,
    kind: "passkey-added",
    credential: "cred-1",
  });
});

test("undo links expire after 7 days and are signed for their purpose only", () => {
  const now = Date.now();
  const token = undoToken(1, { kind: "two-factor-off" }, now);
  expect(readUndoToken(token, now + UNDO_LINK_TTL_MS - 1)).not.toBeNull();
  expect(readUndoToken(token, now + UNDO_LINK_TTL_MS)).toBeNull();
  const payload = { user: 1, kind: "two-factor-off", credential: null, issuedAt: now };
  expect(readUndoToken(signPayload("reauthenticate", payload))).toBeNull();
  expect(readUndoToken(`${token.slice(0, -2)}xx`)).toBeNull();
});

test("undoing an added passkey removes it, ends every session and mails a reset link", async () => {
  const user = parisSender();
  db.insert(passkeys)
    .values({ id: "added", userId: user.id, publicKey: "key", name: "Added" })
    .run();
  db.insert(sessions)
    .values({ sid: `undo-${user.id}`, userId: user.id, expire: new Date(Date.now() + 60_000) })
    .run();
  const token = undoToken(user.id, { kind: "passkey-added", credential: "added" });
  expect(await undoCredentialChange(request, token)).toEqual({
    status: "undone",
    removed: true,
    resetLinkSent: true,
    email: user.email,
  });
  expect(db.select().from(passkeys).where(eq(passkeys.userId, user.id)).all()).toEqual([]);
  expect(db.select().from(sessions).where(eq(sessions.userId, user.id)).all()).toEqual([]);
  expect((await mailsTo(user.email)).map((mail) => mail.subject)).toContain(
    "Reset your Thoughtfully password",
  );
  expect(
    db.select().from(users).where(eq(users.id, user.id)).get()?.passwordResetToken,
  ).not.toBeNull();
});

test("two-factor is turned off only while it is the enrolment the notice named", async () => {
  const user = parisSender();
  const enabledAt = new Date("2026-11-01T00:00:00Z");
  db.insert(twoFactorSecrets).values({ userId: user.id, secret: "S", enabledAt }).run();
  const stale = undoToken(user.id, { kind: "two-factor-on", credential: "12345" });
  expect(await undoCredentialChange(request, stale)).toMatchObject({ removed: false });
  const current = undoToken(user.id, {
    kind: "two-factor-on",
    credential: String(enabledAt.getTime()),
  });
  expect(await undoCredentialChange(request, current)).toMatchObject({ removed: true });
  expect(db.select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, user.id)).get()).toBe(
    undefined,
  );
});

test("a forged or unknown link does nothing", async () => {
  expect(await undoCredentialChange(request, "nonsense")).toBeNull();
  expect(
    await undoCredentialChange(request, undoToken(999_999, { kind: "password-reset" })),
  ).toBeNull();
});
