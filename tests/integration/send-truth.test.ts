import { afterEach, describe, expect, test, vi } from "vitest";
import { createFolder, createItem, createUser, uniqueEmail } from "#db/factories";
import { startMisbehavingRelay } from "../support/integration";

/**
 * Issue 60, items 2 and 7, through the real pass over a real SMTP server on loopback (the
 * relay double, which takes mail like any sink until told otherwise), files on disk, and the
 * folder page's own loader for a signed-in sender:
 * - a photo whose stored file is gone stays in its folder with its reason; the rest goes;
 * - copies a relay answers 4xx wait for their retry, and the folder page says "1 of 3 sent,
 *   the rest retry at HH:MM"; Send Now says what it waits for; a send that failed says why.
 */
const relay = await startMisbehavingRelay();
const [{ db }, schema, drizzle, sending, storageModule, session, folderRoute, metrics, mailer] =
  await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("drizzle-orm"),
    import("~/modules/sending/sending.server"),
    import("~/platform/storage.server"),
    import("~/modules/auth/session.server"),
    import("~/routes/folders+/$folderId"),
    import("~/modules/admin/admin-metrics.server"),
    import("~/platform/mailer.server"),
  ]);
const { storage } = storageModule;

const ORIGIN = "http://localhost:3000";
const ZONE = "Europe/London";

afterEach(async () => {
  vi.restoreAllMocks();
  await mailer.closeMailer();
  relay.endSessions();
  relay.heal();
});

/** The folder page's data, as its loader gives it to the signed-in sender. */
async function folderPage(userId: number, folderId: number) {
  const cookie = (await session.createSession(userId, new Request(ORIGIN), "password")).split(
    ";",
  )[0]!;
  const data = await folderRoute.loader({
    request: new Request(`${ORIGIN}/folders/${folderId}`, { headers: { Cookie: cookie } }),
    params: { folderId: String(folderId) },
    context: {},
  });
  return data as Awaited<ReturnType<typeof folderRoute.loader>>;
}

function item(id: number) {
  return db.select().from(schema.contentItems).where(drizzle.eq(schema.contentItems.id, id)).get()!;
}

function ledgersOf(folderId: number) {
  return db
    .select()
    .from(schema.sendLedger)
    .where(drizzle.eq(schema.sendLedger.folderId, folderId))
    .all();
}

async function stored(bytes: string) {
  const source = (async function* () {
    yield Buffer.from(bytes);
  })();
  return (await storage.put(source)).key;
}

/** "00:25" in the sender's zone. */
function clock(date: Date) {
  return new Intl.DateTimeFormat("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: ZONE,
  }).format(date);
}

describe("a stored file that is gone", () => {
  test("keeps its item in the folder with its reason; the rest of the issue goes", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const now = new Date();
    const sender = createUser(db, { timeZone: ZONE });
    const readers = [uniqueEmail("gran"), uniqueEmail("ann")];
    const folder = createFolder(db, sender.id, {
      name: "Family news",
      recipients: readers.map((email, index) => ({ name: `R${index}`, email })),
      nextSendAt: new Date(now.getTime() - 60_000),
    });
    const lost = await stored("the beach, as it was");
    const kept = await stored("the garden");
    const beach = createItem(db, folder.id, {
      type: "photo",
      title: "Beach day",
      filePaths: [lost],
      fileNames: ["beach.jpg"],
      fileSizes: [20],
      mimeTypes: ["image/jpeg"],
      addComment: true,
      commentText: "Remember this?",
      sortOrder: 0,
    });
    const garden = createItem(db, folder.id, {
      type: "file",
      title: "Garden plan",
      filePaths: [kept],
      fileNames: ["garden.pdf"],
      fileSizes: [10],
      mimeTypes: ["application/pdf"],
      addComment: true,
      commentText: "For spring",
      sortOrder: 1,
    });
    const musing = createItem(db, folder.id, { title: "Sunday lunch", sortOrder: 2 });
    // A restore or a lost volume: the row is there, its file is not.
    await storage.delete(lost);

    await sending.runSchedulerPass(now);

    for (const email of readers) {
      const [mail, ...more] = relay.to(email);
      expect(more, email).toHaveLength(0);
      expect(mail!.subject).toContain("2 things");
      expect(mail!.text).toContain("Sunday lunch");
      expect(mail!.text).toContain("Garden plan");
      expect(mail!.text).not.toContain("Beach day");
      expect(mail!.attachments.map((file) => file.filename)).toEqual(["garden.pdf"]);
    }
    const [ledger] = ledgersOf(folder.id);
    expect(ledger!.status).toBe("sent");
    expect(item(musing.id).sentAt).not.toBeNull();
    expect(item(garden.id).sentAt).not.toBeNull();
    expect(item(beach.id)).toMatchObject({ sentAt: null, missingFiles: [lost] });

    // The sender sees why it stayed, on the item in the folder; the operator, a count.
    const page = await folderPage(sender.id, folder.id);
    expect(page.items).toEqual([
      expect.objectContaining({
        id: beach.id,
        fileMissing: "The photo's file is missing: add it again",
      }),
    ]);
    expect(page.selected!.sendStatus).toBeNull();
    expect(metrics.getSystemHealth().missingFiles.files).toBeGreaterThanOrEqual(1);

    // The next send looks again: still gone, it stays, and nothing else goes in its place.
    const before = relay.messages.length;
    const refusal = await sending.sendNow(sender.id, folder.id).catch((error: Error) => error);
    expect(relay.messages.length).toBe(before);
    expect((refusal as Error).message).toBe(
      "The stored file of every item it carried is missing. Add them again: each item below says which. They go with the next send.",
    );
    expect(item(beach.id).sentAt).toBeNull();
    const last = ledgersOf(folder.id).at(-1)!;
    expect(last.status).toBe("failed");
    const failed = (await folderPage(sender.id, folder.id)).selected!.sendStatus;
    expect(failed).toMatchObject({
      state: "failed",
      why: "The stored file of every item it carried is missing.",
    });
  });
});

describe("copies the relay answers 4xx", () => {
  test("the folder page says how many went and when the rest retry; Send Now says so too", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const now = new Date();
    const sender = createUser(db, { timeZone: ZONE });
    const [mum, dad, ann] = [uniqueEmail("mum"), uniqueEmail("dad"), uniqueEmail("ann")];
    const folder = createFolder(db, sender.id, {
      name: "Garden",
      recipients: [mum, dad, ann].map((email, index) => ({ name: `R${index}`, email })),
      nextSendAt: new Date(now.getTime() - 60_000),
    });
    createItem(db, folder.id, { title: "First tomatoes" });
    relay.at("rcptTo", { answer: "450 4.2.1 Mailbox busy, try again later" }, dad);
    relay.at("rcptTo", { answer: "450 4.2.1 Mailbox busy, try again later" }, ann);

    await sending.runSchedulerPass(now);

    expect(relay.to(mum)).toHaveLength(1);
    const retryAt = new Date(now.getTime() + sending.RETRY_DELAYS_MS[0]!);
    const status = (await folderPage(sender.id, folder.id)).selected!.sendStatus;
    expect(status).toMatchObject({ state: "under way" });
    expect(status!.line).toMatch(
      new RegExp(`^1 of 3 sent, the rest retry at (\\w{3} \\d+ \\w{3}, )?${clock(retryAt)}$`),
    );
    const card = (await folderPage(sender.id, folder.id)).folders.find(
      (each) => each.id === folder.id,
    );
    expect(card!.sendStatus!.line).toBe(status!.line);

    const refusal = await sending.sendNow(sender.id, folder.id).catch((error: Error) => error);
    expect(refusal).toBeInstanceOf(sending.SendRuleError);
    expect((refusal as Error).message).toBe(
      `${status!.line}. Send Now works again once this send is done.`,
    );

    // Still busy at every retry: after the last they fail; one copy went, so the send is sent
    // (its page in Sent names who got it) and the folder page has nothing more to say.
    for (const delay of [5, 25, 60]) {
      await sending.runSchedulerPass(new Date(now.getTime() + delay * 60_000 + 1_000));
    }
    expect(relay.to(dad)).toHaveLength(0);
    expect(ledgersOf(folder.id)[0]!.status).toBe("sent");
    expect((await folderPage(sender.id, folder.id)).selected!.sendStatus).toBeNull();
  });

  test("a send no copy of which went says why, in the relay's words, and what to do", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const now = new Date();
    const sender = createUser(db, { timeZone: ZONE });
    const bea = uniqueEmail("bea");
    const folder = createFolder(db, sender.id, {
      recipients: [{ name: "Bea", email: bea }],
      nextSendAt: new Date(now.getTime() - 60_000),
    });
    createItem(db, folder.id, { title: "Autumn walk" });
    relay.at("rcptTo", { answer: "451 4.3.0 Temporary local problem" }, bea);

    for (const delay of [0, 5, 25, 60]) {
      await sending.runSchedulerPass(new Date(now.getTime() + delay * 60_000 + 1_000));
    }

    expect(ledgersOf(folder.id)[0]!.status).toBe("failed");
    const status = (await folderPage(sender.id, folder.id)).selected!.sendStatus;
    expect(status).toMatchObject({
      state: "failed",
      why: 'The mail service did not take it after 4 tries ("451 4.3.0 Temporary local problem").',
      todo: "Its items are still in the folder: they go with the next send, or press Send Now to try again.",
    });
    expect(status!.line).toMatch(/^The send of \w{3} \d+ \w{3} \d{4}, \d\d:\d\d did not go out$/);
  });
});
