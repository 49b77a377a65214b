import { eq } from "drizzle-orm";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import { contentItems, folders, waitingReminders } from "#db/schema";
import { FolderSchema } from "~/modules/folders/folder-validation";
import { updateFolder } from "~/modules/folders/folders.server";
import { nextSendAt, zonedTimeToUtc } from "~/modules/folders/schedule.server";
import {
  refreshFolderSubscription,
  resubscribe,
  unsubscribe,
} from "~/modules/recipients/opt-outs.server";
import { db } from "~/platform/db.server";
import { env } from "~/platform/env.server";
import { listOutbox, readOutboxMessage } from "~/platform/mailer.server";
import { runSchedulerPass } from "./sending.server";
import {
  claimWaitingReminders,
  REMINDER_LEASE_MS,
  reminderIsDue,
  remindWaitingItems,
} from "./waiting-reminders.server";

const at = (iso: string) => new Date(iso);

async function mailTo(email: string) {
  const entries = (await listOutbox()).filter((entry) => entry.to.includes(email));
  return Promise.all(entries.map(async (entry) => (await readOutboxMessage(entry.id))!));
}

/** A link saved from the share sheet without its note: it waits. */
const waiting = (title: string, sortOrder = 0) => ({
  type: "link" as const,
  title,
  urls: ["https://example.com/"],
  sortOrder,
});

/** A link with its comment: it goes. */
const noted = (title: string, sortOrder = 0) => ({
  ...waiting(title, sortOrder),
  addComment: true,
  commentText: "Look at this",
});

function reminderRows(folderId: number) {
  return db.select().from(waitingReminders).where(eq(waitingReminders.folderId, folderId)).all();
}

describe("which sends are tomorrow, in the owner's zone", () => {
  test("from 09:00 on the local day before, until the send", () => {
    // Sun 1 Nov 2026, 00:01 in London (GMT): the day before is Saturday 31 October.
    const send = zonedTimeToUtc(2026, 11, 1, 0, 1, "Europe/London");
    expect(reminderIsDue(send, "Europe/London", at("2026-10-31T08:59:00Z"))).toBe(false);
    expect(reminderIsDue(send, "Europe/London", at("2026-10-31T09:00:00Z"))).toBe(true);
    expect(reminderIsDue(send, "Europe/London", at("2026-10-31T23:59:00Z"))).toBe(true);
    expect(reminderIsDue(send, "Europe/London", at("2026-10-30T12:00:00Z"))).toBe(false);
    expect(reminderIsDue(send, "Europe/London", send)).toBe(false);
  });

  test("the same instant is tomorrow's eve in one zone and two days before in another", () => {
    const now = at("2026-11-29T20:30:00Z"); // Mon 30 Nov, 09:30 in Auckland (NZDT).
    const auckland = zonedTimeToUtc(2026, 12, 1, 0, 1, "Pacific/Auckland");
    const london = zonedTimeToUtc(2026, 12, 1, 0, 1, "Europe/London");
    expect(reminderIsDue(auckland, "Pacific/Auckland", now)).toBe(true);
    expect(reminderIsDue(london, "Europe/London", now)).toBe(false);
    // Los Angeles' Sun 29 Nov, 12:30: its Monday send is tomorrow.
    const losAngeles = zonedTimeToUtc(2026, 11, 30, 0, 1, "America/Los_Angeles");
    expect(reminderIsDue(losAngeles, "America/Los_Angeles", now)).toBe(true);
  });

  test("across month and year ends, and a monthly 31st in February", () => {
    const monthly = { frequency: "monthly", dayOfWeek: 1, dayOfMonth: 31 } as const;
    const ny = "America/New_York";
    const feb = nextSendAt(monthly, ny, at("2027-02-10T12:00:00Z"));
    expect(feb).toEqual(zonedTimeToUtc(2027, 2, 28, 0, 1, ny));
    expect(reminderIsDue(feb, ny, at("2027-02-27T14:30:00Z"))).toBe(true); // Sat 27 Feb, 09:30 EST
    expect(reminderIsDue(feb, ny, at("2027-02-26T14:30:00Z"))).toBe(false);
    const newYear = zonedTimeToUtc(2027, 1, 1, 0, 1, "Europe/Berlin");
    expect(reminderIsDue(newYear, "Europe/Berlin", at("2026-12-31T08:15:00Z"))).toBe(true);
    expect(reminderIsDue(newYear, "Europe/Berlin", at("2026-12-31T07:59:00Z"))).toBe(false);
    const endOfNovember = zonedTimeToUtc(2026, 11, 30, 0, 1, "Asia/Tokyo");
    expect(reminderIsDue(endOfNovember, "Asia/Tokyo", at("2026-11-29T00:30:00Z"))).toBe(true);
  });
});

describe("the reminder", () => {
  test("lists the waiting items with links to their edit sheets, once per occurrence", async () => {
    const ada = createUser(db, { timeZone: "Europe/London" });
    const sendAt = zonedTimeToUtc(2026, 12, 7, 0, 1, "Europe/London");
    const folder = createFolder(db, ada.id, { name: "Family news", nextSendAt: sendAt });
    const article = createItem(db, folder.id, waiting("Bread for Sunday", 0));
    createItem(db, folder.id, noted("Beach day", 1));
    const photo = createItem(db, folder.id, {
      ...waiting("Photo, Wed 4 Nov", 2),
      type: "photo",
      urls: [],
    });

    const morning = at("2026-12-06T09:10:00Z");
    expect(await remindWaitingItems(morning)).toEqual({ claimed: 1, messages: 1 });
    const [mail, ...more] = await mailTo(ada.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe(`2 items in "Family news" wait for a note before tomorrow's send`);
    const text = mail!.text!.replace(/\s+/g, " ");
    expect(text).toContain(
      "Family news is sent on Mon 7 Dec 2026, 00:01. 1 item with a note will go.",
    );
    expect(mail!.html).toContain(
      `href="http://localhost:3000/folders/${folder.id}/items/${article.id}/edit"`,
    );
    expect(mail!.html).toContain(
      `href="http://localhost:3000/folders/${folder.id}/items/${photo.id}/edit"`,
    );
    expect(mail!.text).not.toContain("Beach day");
    expect(mail!.raw).toMatch(/Message-ID: <waiting-\d+@localhost>/i);

    // Later runs that day, and the next, send nothing more.
    expect((await remindWaitingItems(at("2026-12-06T09:15:00Z"))).messages).toBe(0);
    expect((await remindWaitingItems(at("2026-12-06T22:00:00Z"))).messages).toBe(0);
    expect(await mailTo(ada.email)).toHaveLength(1);
    expect(reminderRows(folder.id)).toMatchObject([{ status: "sent", attempts: 1 }]);
  });

  test("none when nothing waits, for a paused folder, or an unverified owner", async () => {
    const sendAt = zonedTimeToUtc(2026, 12, 8, 0, 1, "UTC");
    const now = at("2026-12-07T10:00:00Z");
    const bea = createUser(db, { timeZone: "UTC" });
    const allNoted = createFolder(db, bea.id, { nextSendAt: sendAt });
    createItem(db, allNoted.id, noted("With a comment"));
    createItem(db, allNoted.id); // a musing
    const paused = createFolder(db, bea.id, { nextSendAt: sendAt, isPaused: true });
    createItem(db, paused.id, waiting("Paused link"));
    const unverified = createUser(db, { timeZone: "UTC", emailVerified: false });
    const theirs = createFolder(db, unverified.id, { nextSendAt: sendAt });
    createItem(db, theirs.id, waiting("Unverified link"));
    const sentAlready = createFolder(db, bea.id, { nextSendAt: sendAt });
    createItem(db, sentAlready.id, { ...waiting("Went last time"), sentAt: at("2026-12-01") });

    await remindWaitingItems(now);
    expect(await mailTo(bea.email)).toHaveLength(0);
    expect(await mailTo(unverified.email)).toHaveLength(0);
    for (const folder of [allNoted, paused, theirs, sentAlready]) {
      expect(reminderRows(folder.id)).toEqual([]);
    }
  });

  test("says the send is skipped when every item waits; one waiting item reads in the singular", async () => {
    const cy = createUser(db, { timeZone: "Asia/Tokyo", firstName: "Cy" });
    const sendAt = zonedTimeToUtc(2026, 12, 10, 0, 1, "Asia/Tokyo");
    const folder = createFolder(db, cy.id, { name: "Cousins", nextSendAt: sendAt });
    createItem(db, folder.id, waiting("A film"));
    // Wed 9 Dec, 09:00 in Tokyo.
    expect((await remindWaitingItems(at("2026-12-09T00:00:00Z"))).messages).toBe(1);
    const [mail] = await mailTo(cy.email);
    expect(mail!.subject).toBe(`1 item in "Cousins" waits for a note before tomorrow's send`);
    expect(mail!.text).toContain("Hi Cy,");
    expect(mail!.text!.replace(/\s+/g, " ")).toContain(
      "Nothing in it has a note yet, so the send is skipped unless you add one.",
    );
  });

  test("a crash between the claim and the send: the next run sends it, once", async () => {
    const dee = createUser(db, { timeZone: "America/New_York" });
    const sendAt = zonedTimeToUtc(2026, 12, 14, 0, 1, "America/New_York");
    const folder = createFolder(db, dee.id, { nextSendAt: sendAt });
    createItem(db, folder.id, waiting("Recipe"));
    const now = at("2026-12-13T15:00:00Z"); // Sun 13 Dec, 10:00 in New York

    // The claim committed, then the process died: nothing was sent.
    expect(claimWaitingReminders(now)).toBe(1);
    expect(claimWaitingReminders(now)).toBe(0);
    expect(reminderRows(folder.id)).toMatchObject([{ status: "pending", attempts: 0 }]);
    expect(await mailTo(dee.email)).toHaveLength(0);

    const later = new Date(now.getTime() + 5 * 60_000);
    expect(await remindWaitingItems(later)).toEqual({ claimed: 0, messages: 1 });
    expect(await remindWaitingItems(later)).toEqual({ claimed: 0, messages: 0 });
    expect(await mailTo(dee.email)).toHaveLength(1);
  });

  test("a crash after the SMTP server accepted it: sent again once after the lease, same Message-ID", async () => {
    const eve = createUser(db, { timeZone: "UTC" });
    const sendAt = zonedTimeToUtc(2026, 12, 16, 0, 1, "UTC");
    const folder = createFolder(db, eve.id, { nextSendAt: sendAt });
    createItem(db, folder.id, waiting("Concert"));
    const now = at("2026-12-15T09:00:00Z");
    expect((await remindWaitingItems(now)).messages).toBe(1);
    // What a crash before the "sent" mark leaves: pending, under the dead run's lease.
    const [row] = reminderRows(folder.id);
    db.update(waitingReminders)
      .set({
        status: "pending",
        attempts: 0,
        nextAttemptAt: new Date(now.getTime() + REMINDER_LEASE_MS),
      })
      .where(eq(waitingReminders.id, row!.id))
      .run();

    expect((await remindWaitingItems(new Date(now.getTime() + 60_000))).messages).toBe(0);
    const afterLease = new Date(now.getTime() + REMINDER_LEASE_MS + 60_000);
    expect((await remindWaitingItems(afterLease)).messages).toBe(1);
    expect((await remindWaitingItems(afterLease)).messages).toBe(0);
    const [first, second, ...more] = await mailTo(eve.email);
    expect(more).toHaveLength(0);
    const messageId = (mail: typeof first) => /Message-ID: (\S+)/i.exec(mail!.raw)?.[1];
    expect(messageId(second)).toBe(messageId(first));
  });

  test("an item that got its note before the reminder went: nothing is sent", async () => {
    const fay = createUser(db, { timeZone: "UTC" });
    const sendAt = zonedTimeToUtc(2026, 12, 18, 0, 1, "UTC");
    const folder = createFolder(db, fay.id, { nextSendAt: sendAt });
    const item = createItem(db, folder.id, waiting("Poem"));
    const now = at("2026-12-17T09:30:00Z");
    expect(claimWaitingReminders(now)).toBe(1);
    db.update(contentItems)
      .set({ addComment: true, commentText: "For you" })
      .where(eq(contentItems.id, item.id))
      .run();
    expect((await remindWaitingItems(now)).messages).toBe(0);
    expect(await mailTo(fay.email)).toHaveLength(0);
    expect(reminderRows(folder.id)).toEqual([]);
  });

  test("a send that is not tomorrow yet, or not at the owner's hour yet, waits", async () => {
    const gus = createUser(db, { timeZone: "Pacific/Auckland" });
    const sendAt = zonedTimeToUtc(2026, 12, 22, 0, 1, "Pacific/Auckland");
    const folder = createFolder(db, gus.id, { nextSendAt: sendAt });
    createItem(db, folder.id, waiting("Holiday plans"));
    // Mon 21 Dec, 08:00 in Auckland (NZDT, +13): too early.
    expect((await remindWaitingItems(at("2026-12-20T19:00:00Z"))).messages).toBe(0);
    // Sun 20 Dec, 10:00 in Auckland: two days before.
    expect((await remindWaitingItems(at("2026-12-19T21:00:00Z"))).messages).toBe(0);
    expect(reminderRows(folder.id)).toEqual([]);
    // Mon 21 Dec, 09:00 in Auckland.
    expect((await remindWaitingItems(at("2026-12-20T20:00:00Z"))).messages).toBe(1);
  });
});

describe("a send held back by its videos", () => {
  /** A clip saved from the Add Video sheet, still being prepared (or refused: `videoStatus`). */
  const clip = (title: string, videoStatus: "preparing" | "failed" = "preparing") => ({
    type: "video" as const,
    title,
    addComment: true,
    commentText: "Look at her go",
    videoStatus,
  });

  test("a folder whose only item is a video still being prepared sends nothing at its time, and its sender is told once", async () => {
    const hal = createUser(db, { timeZone: "UTC", firstName: "Hal" });
    const sendAt = at("2026-12-05T00:01:00Z");
    const folder = createFolder(db, hal.id, { name: "Family", nextSendAt: sendAt });
    createItem(db, folder.id, clip("First steps"));
    const now = at("2026-12-05T00:02:00Z");
    await runSchedulerPass(now);
    expect(reminderRows(folder.id)).toMatchObject([{ kind: "video", status: "pending" }]);

    expect((await remindWaitingItems(now)).messages).toBe(1);
    const [mail, ...more] = await mailTo(hal.email);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe(`Nothing was sent from "Family": 1 video is not prepared yet`);
    const text = mail!.text!.replace(/\s+/g, " ");
    expect(text).toContain("Hi Hal,");
    expect(text).toContain(
      "Family was due to be sent, but nothing in it was ready, so no issue went out. 1 video stayed behind in the folder, not prepared yet: First steps",
    );
    expect(text).toContain("It goes with the next send once prepared.");

    // A second run, or the scheduler's next pass, tells nothing again.
    await runSchedulerPass(at("2026-12-05T00:03:00Z"));
    expect((await remindWaitingItems(at("2026-12-05T01:00:00Z"))).messages).toBe(0);
    expect(await mailTo(hal.email)).toHaveLength(1);
    expect(reminderRows(folder.id)).toMatchObject([{ kind: "video", status: "sent" }]);
  });

  test("a clip prepared before the notice goes is not told; a send with something ready tells nothing", async () => {
    const ida = createUser(db, { timeZone: "UTC" });
    const sendAt = at("2026-12-06T00:01:00Z");
    const quiet = createFolder(db, ida.id, { nextSendAt: sendAt });
    const clipItem = createItem(db, quiet.id, clip("Prepared in time"));
    const sent = createFolder(db, ida.id, { nextSendAt: sendAt });
    createItem(db, sent.id, noted("Soup"));
    createItem(db, sent.id, clip("Still preparing"));
    const now = at("2026-12-06T00:02:00Z");
    await runSchedulerPass(now);
    expect(reminderRows(sent.id)).toEqual([]);
    db.update(contentItems)
      .set({ videoStatus: "ready" })
      .where(eq(contentItems.id, clipItem.id))
      .run();
    expect((await remindWaitingItems(now)).messages).toBe(0);
    expect(reminderRows(quiet.id)).toEqual([]);
    expect(
      (await mailTo(ida.email)).filter((mail) => mail.subject?.startsWith("Nothing was sent")),
    ).toEqual([]);
  });
});

describe("a folder its last recipient left", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const leftRows = (folderId: number) =>
    reminderRows(folderId).filter((row) => row.kind === "left");

  const leftMail = async (email: string) =>
    (await mailTo(email)).filter((mail) => mail.subject?.startsWith("Nobody gets"));

  test("its sender is told once, who left and the one next step, never why", async () => {
    const jo = createUser(db, { firstName: "Jo" });
    const folder = createFolder(db, jo.id, {
      name: "Family news",
      recipients: [
        { name: "Mum", email: "left-mum@example.com" },
        { name: "Dad", email: "left-dad@example.com" },
      ],
    });
    expect(unsubscribe({ folderId: folder.id, email: "left-mum@example.com" })).toBe(false);
    expect(leftRows(folder.id)).toEqual([]);
    expect(
      unsubscribe({ folderId: folder.id, email: "left-dad@example.com", reason: "not_interested" }),
    ).toBe(true);
    // The page posted again, or the mail app's one-click after it: nothing more to tell.
    expect(unsubscribe({ folderId: folder.id, email: "left-dad@example.com" })).toBe(false);
    expect(leftRows(folder.id)).toMatchObject([{ status: "pending", userId: jo.id }]);

    const now = new Date();
    expect((await remindWaitingItems(now)).messages).toBe(1);
    expect((await remindWaitingItems(now)).messages).toBe(0);
    const [mail, ...more] = await leftMail(jo.email);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('Nobody gets "Family news" now');
    const text = mail!.text!.replace(/\s+/g, " ");
    expect(text).toContain("Hi Jo,");
    expect(text).toContain(
      'Mum and Dad unsubscribed from "Family news", so no issue goes out until it has a recipient again. What you saved stays in the folder.',
    );
    expect(text).toContain("Add a recipient");
    expect(mail!.html).toContain(`href="${env.APP_URL}/folders/${folder.id}/edit"`);
    expect(text).not.toMatch(/not for me|not interested/i);
    expect(leftRows(folder.id)).toMatchObject([{ status: "sent" }]);
  });

  test("a folder that has a recipient again before the notice goes tells nothing", async () => {
    const kay = createUser(db);
    const folder = createFolder(db, kay.id, {
      recipients: [{ name: "Gran", email: "back-gran@example.com" }],
    });
    expect(unsubscribe({ folderId: folder.id, email: "back-gran@example.com" })).toBe(true);
    resubscribe(folder.id, "back-gran@example.com");
    expect((await remindWaitingItems(new Date())).messages).toBe(0);
    expect(leftRows(folder.id)).toEqual([]);
    expect(await leftMail(kay.email)).toEqual([]);
  });

  test("each time the folder loses its last recipient is told once: leaving, coming back, leaving again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-02T10:00:00Z"));
    const lou = createUser(db);
    const folder = createFolder(db, lou.id, {
      recipients: [{ name: "Sam", email: "again-sam@example.com" }],
    });
    unsubscribe({ folderId: folder.id, email: "again-sam@example.com" });
    expect((await remindWaitingItems(new Date())).messages).toBe(1);
    vi.setSystemTime(new Date("2026-12-09T10:00:00Z"));
    resubscribe(folder.id, "again-sam@example.com");
    vi.setSystemTime(new Date("2026-12-16T10:00:00Z"));
    expect(unsubscribe({ folderId: folder.id, email: "again-sam@example.com" })).toBe(true);
    expect((await remindWaitingItems(new Date())).messages).toBe(1);
    expect(await leftMail(lou.email)).toHaveLength(2);
  });

  test("an opt-out from everything tells only the sender whose link it was; a sender's own edit tells nothing", async () => {
    const may = createUser(db);
    const ned = createUser(db);
    const mays = createFolder(db, may.id, {
      recipients: [{ name: "Gran", email: "all-gran@example.com" }],
    });
    const neds = createFolder(db, ned.id, {
      recipients: [{ name: "Granny", email: "all-gran@example.com" }],
    });
    expect(
      unsubscribe({ folderId: mays.id, email: "all-gran@example.com", scope: "everything" }),
    ).toBe(true);
    expect(leftRows(mays.id)).toHaveLength(1);
    // Ned's folder is empty too, and says so; an e-mail would tell him when she left.
    expect(db.select().from(folders).where(eq(folders.id, neds.id)).get()!.isUnsubscribed).toBe(
      true,
    );
    expect(leftRows(neds.id)).toEqual([]);

    // Ned's other folder: Pat left long ago; Ned himself takes Kim off, leaving only Pat.
    const both = createFolder(db, ned.id, {
      recipients: [
        { name: "Pat", email: "edit-pat@example.com" },
        { name: "Kim", email: "edit-kim@example.com" },
      ],
    });
    unsubscribe({ folderId: both.id, email: "edit-pat@example.com" });
    updateFolder(
      ned.id,
      both.id,
      FolderSchema.parse({
        name: "Family",
        recipients: [{ name: "Pat", email: "edit-pat@example.com" }],
        frequency: "weekly",
        dayOfWeek: 1,
      }),
    );
    // As the settings form's action does after every save.
    expect(refreshFolderSubscription(both.id)).not.toBeNull();
    expect(db.select().from(folders).where(eq(folders.id, both.id)).get()!.isUnsubscribed).toBe(
      true,
    );
    expect(leftRows(both.id)).toEqual([]);
  });
});
