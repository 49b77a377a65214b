import fs from "node:fs";
import { generateTOTP } from "@epic-web/totp";
import { simpleParser } from "mailparser";
import { describe, expect, test } from "vitest";
import { createUser } from "#db/factories";
import { sessions, twoFactorSecrets } from "#db/schema";
import { cheapPasswordHash } from "#tests/support/cheap-password-hash";
import { waitForBackgroundWork } from "~/platform/background-work.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import {
  acceptReauthenticationLink,
  EMAIL_LINK_TTL_MS,
  emailReauthenticationLink,
  enrolmentNeedsEmail,
  isRecentlyReauthenticated,
  REAUTHENTICATION_WINDOW_MS,
  readReauthenticationLink,
  reauthenticateWithCode,
  reauthenticateWithPassword,
  recordReauthentication,
  requireRecentReauthentication,
} from "./reauthentication.server";
import { grantRole } from "./roles.server";
import type { CurrentSession } from "./session.server";

const PASSWORD = "the owner's password";
// Checks against a cheap hash: these tests are about the proofs, not hashing cost.
const passwordHash = cheapPasswordHash(PASSWORD);
let counter = 0;

/** A user and a signed-in session of theirs, as getCurrentSession would return it. */
async function signedIn(values: Parameters<typeof createUser>[1] = {}): Promise<CurrentSession> {
  counter += 1;
  const user = createUser(db, {
    email: `reauth-${counter}@example.com`,
    passwordHash,
    ...values,
  });
  return { user, sessionId: newSession(user.id), renewedCookie: null, signInMethod: "password" };
}

function newSession(userId: number) {
  counter += 1;
  const sid = `session-${counter}`;
  db.insert(sessions)
    .values({
      sid,
      userId,
      expire: new Date(Date.now() + 60 * 60 * 1000),
      signInMethod: "password",
    })
    .run();
  return sid;
}

const request = (path = "/profile/tokens") =>
  new Request(`http://localhost:3000${path}`, { method: "POST" });

describe("the window", () => {
  test("a proof holds ten minutes, on the session that gave it only", async () => {
    const session = await signedIn();
    const otherSession = newSession(session.user.id);
    const now = Date.now();
    expect(isRecentlyReauthenticated(session.sessionId)).toBe(false);
    recordReauthentication(session.sessionId, "password", new Date(now));
    expect(isRecentlyReauthenticated(session.sessionId, {}, now + 1000)).toBe(true);
    expect(
      isRecentlyReauthenticated(session.sessionId, {}, now + REAUTHENTICATION_WINDOW_MS - 1),
    ).toBe(true);
    expect(isRecentlyReauthenticated(session.sessionId, {}, now + REAUTHENTICATION_WINDOW_MS)).toBe(
      false,
    );
    expect(isRecentlyReauthenticated(otherSession, {}, now + 1000)).toBe(false);
  });

  test("where only the mailbox will do, a password is not enough", async () => {
    const session = await signedIn();
    recordReauthentication(session.sessionId, "password");
    expect(isRecentlyReauthenticated(session.sessionId, { emailOnly: true })).toBe(false);
    recordReauthentication(session.sessionId, "email");
    expect(isRecentlyReauthenticated(session.sessionId, { emailOnly: true })).toBe(true);
  });

  test("without a proof, the request goes to the page that asks, and comes back", async () => {
    const session = await signedIn();
    let thrown: unknown = null;
    try {
      requireRecentReauthentication(request("/profile/tokens?x=1"), session);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Response);
    const location = (thrown as Response).headers.get("Location");
    expect(location).toBe(
      `/reauthenticate?${new URLSearchParams({ redirectTo: "/profile/tokens?x=1" })}`,
    );
    expect(() =>
      requireRecentReauthentication(request(), session, {
        redirectTo: "https://evil.example/",
        emailOnly: true,
      }),
    ).toThrow();
    recordReauthentication(session.sessionId, "totp");
    expect(() => requireRecentReauthentication(request(), session)).not.toThrow();
  });

  test("an admin without a second factor proves it by e-mail; others and enrolled admins do not", async () => {
    const admin = await signedIn();
    const member = await signedIn();
    grantRole(admin.user.id, "admin");
    expect(enrolmentNeedsEmail(admin.user.id)).toBe(true);
    expect(enrolmentNeedsEmail(member.user.id)).toBe(false);
    db.insert(twoFactorSecrets)
      .values({ userId: admin.user.id, secret: "JBSWY3DPEHPK3PXP", enabledAt: new Date() })
      .run();
    expect(enrolmentNeedsEmail(admin.user.id)).toBe(false);
  });
});

describe("the proofs", () => {
  test("the password, and only the right one; wrong ones are throttled like log-ins", async () => {
    const session = await signedIn();
    expect(await reauthenticateWithPassword(request(), session, "not it")).toBe("wrong");
    expect(isRecentlyReauthenticated(session.sessionId)).toBe(false);
    expect(await reauthenticateWithPassword(request(), session, PASSWORD)).toBe("ok");
    expect(isRecentlyReauthenticated(session.sessionId)).toBe(true);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await reauthenticateWithPassword(request(), session, "still not it");
    }
    expect(await reauthenticateWithPassword(request(), session, PASSWORD)).toBe("throttled");
  });

  test("an account without a password cannot prove itself with one", async () => {
    const session = await signedIn({ passwordHash: null });
    expect(await reauthenticateWithPassword(request(), session, "")).toBe("wrong");
  });

  test("a current authenticator code, recorded as such", async () => {
    const session = await signedIn();
    const { secret, otp } = await generateTOTP({ period: 30, digits: 6, algorithm: "SHA-1" });
    db.insert(twoFactorSecrets)
      .values({ userId: session.user.id, secret, enabledAt: new Date() })
      .run();
    expect(await reauthenticateWithCode(request(), session, "12345")).toBe("wrong");
    expect(await reauthenticateWithCode(request(), session, otp)).toBe("ok");
    const row = db
      .select()
      .from(sessions)
      .all()
      .find((s) => s.sid === session.sessionId);
    expect(row?.reauthenticatedBy).toBe("totp");
  });
});

describe("the e-mailed link", () => {
  async function linkFromOutbox(to: string) {
    await waitForBackgroundWork();
    for (const file of fs.readdirSync(env.OUTBOX_DIR).sort().reverse()) {
      const mail = await simpleParser(fs.readFileSync(`${env.OUTBOX_DIR}/${file}`));
      const match = /\/reauthenticate\/email\?token=([A-Za-z0-9_.%-]+)/.exec(mail.text ?? "");
      if (match && [mail.to].flat().some((address) => address?.text.includes(to))) {
        return decodeURIComponent(match[1]!);
      }
    }
    throw new Error("no re-verification link in the outbox");
  }

  test("works once, in the session that asked, within 15 minutes", async () => {
    const session = await signedIn({ passwordHash: null });
    const otherSession = { ...session, sessionId: newSession(session.user.id) };
    expect(await emailReauthenticationLink(request(), session, "/profile/two-factor")).toBeNull();
    const token = await linkFromOutbox(session.user.email);
    expect(readReauthenticationLink(otherSession, token)).toEqual({ status: "other-browser" });
    expect(readReauthenticationLink(session, token, Date.now() + EMAIL_LINK_TTL_MS)).toEqual({
      status: "invalid",
    });
    expect(readReauthenticationLink(session, `${token}x`)).toEqual({ status: "invalid" });
    // Reading (a GET, a mail scanner) changes nothing.
    expect(isRecentlyReauthenticated(session.sessionId)).toBe(false);
    expect(acceptReauthenticationLink(session, token)).toEqual({
      status: "ok",
      redirectTo: "/profile/two-factor",
    });
    expect(isRecentlyReauthenticated(session.sessionId, { emailOnly: true })).toBe(true);
    expect(acceptReauthenticationLink(session, token)).toEqual({ status: "invalid" });
  });

  test("limited like the other account e-mails", async () => {
    const session = await signedIn();
    const answers = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      answers.push(await emailReauthenticationLink(request(), session, "/profile"));
    }
    expect(answers.slice(0, 3)).toEqual([null, null, null]);
    expect(answers[3]).toMatch(/try again/i);
  });
});
