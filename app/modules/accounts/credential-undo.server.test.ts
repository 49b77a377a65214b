import fs from "node:fs";
import { eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { expect, test } from "vitest";
import { createUser } from "#db/factories";
import { passkeys, securityEvents, sessions, users } from "#db/schema";
import { undoToken } from "~/modules/auth/credential-notices.server";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { alreadyUsedMessage, undoCredentialChange, undoLinkUse } from "./credential-undo.server";

/** A sender in Paris: "already used" gives the time in the owner's time zone. */
const parisSender = () => createUser(db, { timeZone: "Europe/Paris" });

const request = new Request("http://localhost:3000/account/undo", { method: "POST" });

/** Sat 28 Nov 2026, 14:05 in Paris. */
const firstUse = new Date("2026-11-28T13:05:00Z");

function signedIn(userId: number, sid: string) {
  db.insert(sessions)
    .values({ sid, userId, expire: new Date(Date.now() + 60_000) })
    .run();
}

const sessionsOf = (userId: number) =>
  db.select({ sid: sessions.sid }).from(sessions).where(eq(sessions.userId, userId)).all();

async function resetMailsTo(email: string) {
  await waitForBackgroundWork();
  let found = 0;
  for (const file of fs.readdirSync(env.OUTBOX_DIR)) {
    const mail = await simpleParser(fs.readFileSync(`${env.OUTBOX_DIR}/${file}`));
    const to = [mail.to].flat().some((address) => address?.text.includes(email));
    if (to && mail.subject === "Reset your Thoughtfully password") found++;
  }
  return found;
}

function undoEventsOf(userId: number) {
  return db
    .select()
    .from(securityEvents)
    .where(eq(securityEvents.userId, userId))
    .all()
    .filter((event) => event.eventType === "suspicious_activity");
}

test("an undo link acts once; used again it signs no one out and says when it was used", async () => {
  const user = parisSender();
  db.insert(passkeys)
    .values({ id: `added-${user.id}`, userId: user.id, publicKey: "key", name: "Added" })
    .run();
  signedIn(user.id, `intruder-${user.id}`);
  const token = undoToken(user.id, { kind: "passkey-added", credential: `added-${user.id}` });
  expect(undoLinkUse(token)).toBeNull();

  expect(await undoCredentialChange(request, token, firstUse)).toMatchObject({
    status: "undone",
    removed: true,
  });
  expect(sessionsOf(user.id)).toEqual([]);
  const resetToken = db.select().from(users).where(eq(users.id, user.id)).get()?.passwordResetToken;

  // The owner signs in again; the link, used again, must not end that session.
  signedIn(user.id, `owner-${user.id}`);
  expect(await undoCredentialChange(request, token, new Date(firstUse.getTime() + 60_000))).toEqual(
    {
      status: "used",
      message:
        "This link was already used on Sat 28 Nov 2026, 14:05: the change was undone and every device signed out.",
    },
  );
  expect(sessionsOf(user.id)).toEqual([{ sid: `owner-${user.id}` }]);
  expect(db.select().from(users).where(eq(users.id, user.id)).get()?.passwordResetToken).toBe(
    resetToken,
  );
  expect(await resetMailsTo(user.email)).toBe(1);
  expect(undoEventsOf(user.id)).toHaveLength(1);
  expect(undoLinkUse(token)).toEqual({ usedAt: firstUse, credentialRemoved: true });
});

test("two posts of one link at once: one undoes, the other only reads what it did", async () => {
  const user = parisSender();
  signedIn(user.id, `both-${user.id}`);
  const token = undoToken(user.id, { kind: "password-reset" });
  const outcomes = await Promise.all([
    undoCredentialChange(request, token, firstUse),
    undoCredentialChange(request, token, firstUse),
  ]);
  expect(outcomes.map((outcome) => outcome?.status).sort()).toEqual(["undone", "used"]);
  expect(await resetMailsTo(user.email)).toBe(1);
  expect(undoEventsOf(user.id)).toHaveLength(1);
});

test("each notice's link is its own: using one leaves another unused", async () => {
  const user = parisSender();
  const first = undoToken(user.id, { kind: "two-factor-off" }, firstUse.getTime());
  const second = undoToken(user.id, { kind: "two-factor-off" }, firstUse.getTime() + 1);
  await undoCredentialChange(request, first, firstUse);
  expect(undoLinkUse(second)).toBeNull();
  expect(await undoCredentialChange(request, second, firstUse)).toMatchObject({
    status: "undone",
  });
});

test("the message says what the first use did, in the owner's time zone", () => {
  expect(alreadyUsedMessage({ usedAt: firstUse, credentialRemoved: false }, "Europe/Paris")).toBe(
    "This link was already used on Sat 28 Nov 2026, 14:05: every device was signed out.",
  );
  expect(
    alreadyUsedMessage({ usedAt: firstUse, credentialRemoved: true }, "America/New_York"),
  ).toBe(
    "This link was already used on Sat 28 Nov 2026, 08:05: the change was undone and every device signed out.",
  );
});
