import { eq } from "drizzle-orm";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createFolder as createFolderRow, createUser } from "#db/factories";
import { mailboxSuppressions, recipientWelcomes, users } from "#db/schema";
import { createSentIssue } from "#db/sent-issue-factories";
import { type FolderInput, FolderSchema } from "~/modules/folders/folder-validation";
import { createFolder, updateFolder } from "~/modules/folders/folders.server";
import { zonedTimeToUtc } from "~/modules/folders/schedule.server";
import { hasOptedOut, unsubscribe } from "~/modules/recipients/opt-outs.server";
import { welcomeLinkCode } from "~/modules/recipients/recipient-links.server";
import { db } from "~/platform/db.server";
import { comparableMailbox } from "~/platform/email-address";
import { listOutbox, readOutboxMessage } from "~/platform/mailer.server";
import {
  answerWelcome,
  sendWelcomes,
  WELCOME_LEASE_MS,
  welcomePage,
  welcomeStates,
} from "./welcomes.server";

afterEach(() => {
  vi.useRealTimers();
});

async function mailTo(email: string) {
  const entries = (await listOutbox()).filter((entry) => entry.to.includes(email));
  return Promise.all(entries.map(async (entry) => (await readOutboxMessage(entry.id))!));
}

let counter = 0;
/** An address no other test uses: the outbox and the limits are shared by the file. */
function address(name: string) {
  counter += 1;
  return `${name}-${counter}@example.net`;
}

function folderInput(recipients: { name: string; email: string }[]): FolderInput {
  return FolderSchema.parse({ name: "Family news", recipients, frequency: "weekly", dayOfWeek: 1 });
}

function welcomeRows(folderId: number) {
  return db.select().from(recipientWelcomes).where(eq(recipientWelcomes.folderId, folderId)).all();
}

const oneLine = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ");

describe("the welcome", () => {
  test("each new recipient gets one, in the sender's name, naming the first issue's day", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(zonedTimeToUtc(2026, 12, 2, 10, 0, "Europe/London")); // Wed 2 Dec
    const ada = createUser(db, {
      firstName: "Ada",
      lastName: "Lovelace",
      timeZone: "Europe/London",
    });
    const mum = address("mum");
    const dad = address("dad");
    const folder = createFolder(
      ada.id,
      folderInput([
        { name: "Mum", email: mum },
        { name: "Dad", email: dad },
      ]),
    );
    expect(welcomeRows(folder.id)).toMatchObject([{ status: "pending" }, { status: "pending" }]);

    expect(await sendWelcomes()).toBe(2);
    expect(await sendWelcomes()).toBe(0);
    const [mail, ...more] = await mailTo(mum);
    expect(more).toHaveLength(0);
    expect(await mailTo(dad)).toHaveLength(1);
    expect(mail!.subject).toBe('Ada Lovelace added you to "Family news"');
    expect(mail!.raw).toMatch(/^From: "?Ada Lovelace via Thoughtfully"? </m);
    expect(mail!.raw).toMatch(new RegExp(`^Reply-To: ${ada.email}`, "m"));
    expect(mail!.raw).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    const text = oneLine(mail!.text);
    expect(text).toContain("The first issue comes on Mon 7 Dec.");
    expect(text).toContain("Sounds lovely");
    expect(text).toContain("Not for me");
    // No tracking: no open image, no click redirect, the address not in any link.
    expect(mail!.html).not.toContain("/t/o/");
    expect(mail!.html).not.toContain("/t/c/");
    const code = welcomeLinkCode(folder.id, mum);
    expect(mail!.html).toContain(`/w/${code}?answer=yes`);
    expect(mail!.html).toContain(`/w/${code}?answer=no`);
    expect(mail!.html).not.toContain(encodeURIComponent(mum));
    expect(welcomeStates(folder.id)(mum)).toMatchObject({ status: "sent", saidYes: false });
  });

  test("an edit welcomes only the mailboxes it adds, and a mailbox once per folder", async () => {
    const ada = createUser(db);
    const mum = address("mum");
    const folder = createFolder(ada.id, folderInput([{ name: "Mum", email: mum }]));
    await sendWelcomes();
    const gran = address("gran");
    updateFolder(
      ada.id,
      folder.id,
      folderInput([
        { name: "Mum", email: mum },
        { name: "Gran", email: gran },
      ]),
    );
    expect(await sendWelcomes()).toBe(1);
    expect(await mailTo(gran)).toHaveLength(1);
    // Taken off, then put back under another spelling of the same mailbox.
    updateFolder(ada.id, folder.id, folderInput([{ name: "Gran", email: gran }]));
    updateFolder(
      ada.id,
      folder.id,
      folderInput([
        { name: "Gran", email: gran },
        { name: "Mum", email: mum.replace("@", "+news@") },
      ]),
    );
    expect(await sendWelcomes()).toBe(0);
    expect(await mailTo(mum)).toHaveLength(1);
  });

  test("a sender who lists their own address, in any spelling, gets no welcome from themselves", async () => {
    const own = address("ada");
    const ada = createUser(db, { email: own });
    const mum = address("mum");
    const folder = createFolder(
      ada.id,
      folderInput([
        { name: "Me", email: own.toUpperCase().replace("@", "+copy@") },
        { name: "Mum", email: mum },
      ]),
    );
    expect(welcomeRows(folder.id).map((row) => row.email)).toEqual([mum]);
    expect(await sendWelcomes()).toBe(1);
    expect(await mailTo(mum)).toHaveLength(1);
  });

  test("a recipient taken off before their welcome went gets none, and one if put back", async () => {
    const ada = createUser(db);
    const mum = address("mum");
    const folder = createFolder(ada.id, folderInput([{ name: "Mum", email: mum }]));
    const other = address("other");
    updateFolder(ada.id, folder.id, folderInput([{ name: "Other", email: other }]));
    expect(await sendWelcomes()).toBe(1);
    expect(await mailTo(mum)).toHaveLength(0);
    updateFolder(
      ada.id,
      folder.id,
      folderInput([
        { name: "Other", email: other },
        { name: "Mum", email: mum },
      ]),
    );
    expect(await sendWelcomes()).toBe(1);
    expect(await mailTo(mum)).toHaveLength(1);
  });

  test("no welcome to a mailbox that left everything or is suppressed", async () => {
    const ada = createUser(db);
    const gone = address("gone");
    const bounced = address("bounced");
    const elsewhere = createFolder(ada.id, folderInput([{ name: "Gone", email: gone }]));
    unsubscribe({ folderId: elsewhere.id, email: gone, scope: "everything" });
    db.insert(mailboxSuppressions)
      .values({ mailbox: bounced, email: bounced, reason: "hard_bounce" })
      .run();
    db.delete(recipientWelcomes).run();
    const folder = createFolder(
      ada.id,
      folderInput([
        { name: "Gone", email: gone },
        { name: "Bounced", email: bounced },
      ]),
    );
    expect(await sendWelcomes()).toBe(0);
    expect(await mailTo(gone)).toHaveLength(0);
    expect(await mailTo(bounced)).toHaveLength(0);
    expect(welcomeRows(folder.id)).toMatchObject([{ status: "skipped" }, { status: "skipped" }]);
  });

  test("an unverified sender's welcomes wait until the address is confirmed", async () => {
    const ada = createUser(db, { emailVerified: false });
    const mum = address("mum");
    createFolder(ada.id, folderInput([{ name: "Mum", email: mum }]));
    expect(await sendWelcomes()).toBe(0);
    db.update(users).set({ emailVerified: true }).where(eq(users.id, ada.id)).run();
    expect(await sendWelcomes()).toBe(1);
    expect(await mailTo(mum)).toHaveLength(1);
  });

  test("a crash after the SMTP server accepted it: sent again once after the lease, same Message-ID", async () => {
    const ada = createUser(db);
    const mum = address("mum");
    const folder = createFolder(ada.id, folderInput([{ name: "Mum", email: mum }]));
    const now = new Date("2026-12-02T10:00:00Z");
    expect(await sendWelcomes(now)).toBe(1);
    // What a crash before the "sent" mark leaves: pending, under the dead run's lease.
    const [row] = welcomeRows(folder.id);
    db.update(recipientWelcomes)
      .set({
        status: "pending",
        attempts: 0,
        nextAttemptAt: new Date(now.getTime() + WELCOME_LEASE_MS),
      })
      .where(eq(recipientWelcomes.id, row!.id))
      .run();
    expect(await sendWelcomes(new Date(now.getTime() + 60_000))).toBe(0);
    const afterLease = new Date(now.getTime() + WELCOME_LEASE_MS + 60_000);
    expect(await sendWelcomes(afterLease)).toBe(1);
    expect(await sendWelcomes(afterLease)).toBe(0);
    const [first, second, ...more] = await mailTo(mum);
    expect(more).toHaveLength(0);
    const messageId = (mail: typeof first) => /Message-ID: (\S+)/i.exec(mail!.raw)?.[1];
    expect(messageId(first)).toBe(`<welcome-${row!.id}@localhost>`);
    expect(messageId(second)).toBe(messageId(first));
  });

  test("greets the recipient by the name the sender gave them, or plainly without one", async () => {
    const ada = createUser(db);
    const dad = address("dad");
    createFolder(ada.id, folderInput([{ name: " Dad ", email: dad }]));
    // A folder listing an address without a name (the API, or the legacy fields' stand-in).
    const nameless = address("nameless");
    const legacy = address("legacy");
    const folder = createFolderRow(db, ada.id, {
      recipients: [
        { name: "", email: nameless },
        { name: "recipient", email: legacy },
      ],
    });
    db.insert(recipientWelcomes)
      .values(
        [nameless, legacy].map((email) => ({
          folderId: folder.id,
          email,
          mailbox: comparableMailbox(email),
        })),
      )
      .run();
    expect(await sendWelcomes()).toBe(3);
    const [toDad] = await mailTo(dad);
    expect(oneLine(toDad!.text)).toContain("Hi Dad, Ada Lovelace saves links");
    for (const email of [nameless, legacy]) {
      const [mail] = await mailTo(email);
      expect(oneLine(mail!.text)).toContain("Hi, Ada Lovelace saves links");
    }
  });

  test("a welcome that reaches them after an issue names the next issue, never the first", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(zonedTimeToUtc(2026, 12, 2, 10, 0, "Europe/London")); // Wed 2 Dec
    const bea = createUser(db, { timeZone: "Europe/London", emailVerified: false });
    const dad = address("dad");
    const mum = address("mum");
    const folder = createFolder(
      bea.id,
      folderInput([
        { name: "Dad", email: dad },
        { name: "Mum", email: mum },
      ]),
    );
    // The welcomes waited (here for the sender's address; as well for a limit or the relay),
    // and meanwhile an issue reached Dad, in another spelling of his mailbox.
    expect(await sendWelcomes()).toBe(0);
    createSentIssue(db, folder.id, { titles: ["Week 1"], emails: [dad.toUpperCase()] });
    db.update(users).set({ emailVerified: true }).where(eq(users.id, bea.id)).run();
    expect(await sendWelcomes()).toBe(2);

    const toDad = oneLine((await mailTo(dad))[0]!.text);
    expect(toDad).toContain("The next issue comes on Mon 7 Dec.");
    expect(toDad).not.toContain("first issue");
    expect(oneLine((await mailTo(mum))[0]!.text)).toContain("The first issue comes on Mon 7 Dec.");
    expect(welcomePage(welcomeLinkCode(folder.id, dad))).toMatchObject({
      nextIssue: "The next issue comes on Mon 7 Dec.",
    });
    expect(welcomePage(welcomeLinkCode(folder.id, mum))).toMatchObject({
      nextIssue: "The first issue comes on Mon 7 Dec.",
    });
  });

  test("one mailbox gets at most three welcomes an hour, from all folders; the rest wait", async () => {
    const ada = createUser(db, { subscriptionTier: "premium", subscriptionStatus: "active" });
    const busy = address("busy");
    const now = new Date("2026-12-03T10:00:00Z");
    const made = [1, 2, 3, 4].map(() =>
      createFolder(ada.id, folderInput([{ name: "B", email: busy }])),
    );
    expect(await sendWelcomes(now)).toBe(3);
    const waiting = made
      .flatMap((folder) => welcomeRows(folder.id))
      .find((row) => row.status === "pending");
    expect(waiting?.nextAttemptAt?.getTime()).toBeGreaterThan(now.getTime());
    expect(await mailTo(busy)).toHaveLength(3);
  });
});

describe("the welcome page", () => {
  async function welcomed() {
    const ada = createUser(db, { firstName: "Ada", lastName: null });
    const mum = address("mum");
    const folder = createFolder(ada.id, folderInput([{ name: "Mum", email: mum }]));
    await sendWelcomes();
    return { folder, mum, code: welcomeLinkCode(folder.id, mum) };
  }

  test('opening it records nothing; "Sounds lovely" is recorded for the sender', async () => {
    const { folder, mum, code } = await welcomed();
    expect(welcomePage(code)).toMatchObject({ state: "open", senderName: "Ada", answer: null });
    expect(welcomeStates(folder.id)(mum)?.saidYes).toBe(false);
    expect(answerWelcome(code, "yes")).toMatchObject({ state: "open", answer: "yes" });
    expect(welcomeStates(folder.id)(mum)?.saidYes).toBe(true);
    expect(hasOptedOut(folder.id, mum)).toBe(false);
  });

  test('"Not for me" unsubscribes from the folder at once; a later yes changes nothing', async () => {
    const { folder, mum, code } = await welcomed();
    expect(answerWelcome(code, "no")).toMatchObject({ state: "left" });
    expect(hasOptedOut(folder.id, mum)).toBe(true);
    expect(answerWelcome(code, "yes")).toMatchObject({ state: "left" });
    expect(welcomeStates(folder.id)(mum)?.saidYes).toBe(false);
  });

  test("a forged code, another folder's code, or an address taken off answers nothing", async () => {
    const { folder, mum, code } = await welcomed();
    const [packed, token] = code.split(".");
    const otherFolder = Buffer.from(`${folder.id + 1}:${mum}`).toString("base64url");
    for (const forged of [
      `${otherFolder}.${token}`,
      `${packed}.${token!.slice(1)}x`,
      packed!,
      "",
    ]) {
      expect(answerWelcome(forged, "no")).toEqual({ state: "unknown" });
    }
    expect(hasOptedOut(folder.id, mum)).toBe(false);
    const ada = db.select().from(users).where(eq(users.id, folder.userId)).get()!;
    updateFolder(ada.id, folder.id, folderInput([{ name: "Someone", email: address("someone") }]));
    expect(welcomePage(code)).toEqual({ state: "unknown" });
  });
});
