import sharp from "sharp";
import { describe, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";
import { missingFileReason } from "~/modules/items/missing-file";
import { startSmtpSink } from "../support/integration";

/**
 * The send engine against a real SMTP server on loopback, read back with
 * mailparser. The server address must be in the environment before the app's
 * modules read it, so they are imported after the sink starts.
 */
const sink = await startSmtpSink();
const app = await loadApp();

async function loadApp() {
  const [{ db }, schema, sending, links, { storage }, drizzle, claims] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("~/modules/recipients/recipient-links.server"),
    import("~/platform/storage.server"),
    import("drizzle-orm"),
    import("~/modules/sending/send-claim.server"),
  ]);
  return { db, schema, sending, links, storage, drizzle, claims };
}

async function storeBytes(bytes: Buffer) {
  const { key } = await app.storage.put(
    (async function* () {
      yield bytes;
    })(),
  );
  return key;
}

let counter = 0;
async function seedFolder(options: {
  recipients: string[];
  ccSender?: boolean;
  nextSendAt?: Date;
  withFiles?: boolean;
  items?: boolean;
}) {
  const { db, schema } = app;
  counter += 1;
  const user = createUser(db, { timeZone: "Europe/London" });
  const folder = createFolder(db, user.id, {
    name: `Family ${counter}`,
    recipients: options.recipients.map((email, index) => ({ name: `R${index}`, email })),
    ccSender: options.ccSender ?? false,
    personalSignoff: "Love, Ada",
    nextSendAt: options.nextSendAt ?? new Date(Date.now() - 60_000),
  });
  const keys: string[] = [];
  if (options.items !== false) {
    db.insert(schema.contentItems)
      .values([
        {
          folderId: folder.id,
          type: "link",
          title: "A good read",
          urls: ["https://example.com/story"],
          addComment: true,
          commentText: "You will like this <b>one</b>",
          responseExpectation: "expecting",
          sortOrder: 0,
        },
        {
          folderId: folder.id,
          type: "musing",
          title: "Thinking of you",
          note: "Line one\nLine two",
          sortOrder: 1,
        },
      ])
      .run();
  }
  if (options.withFiles) {
    const photo = async (color: string) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background: color } })
        .jpeg()
        .toBuffer();
    const photos = [await photo("#ff0000"), await photo("#00ff00")];
    const photoKeys = [await storeBytes(photos[0]!), await storeBytes(photos[1]!)];
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
    const pdfKey = await storeBytes(pdf);
    keys.push(...photoKeys, pdfKey);
    db.insert(schema.contentItems)
      .values([
        {
          folderId: folder.id,
          type: "photo",
          title: "Holiday",
          filePaths: photoKeys,
          thumbnailPaths: ["", ""],
          fileNames: ["beach.jpg", "hills.jpg"],
          fileSizes: photos.map((buffer) => buffer.length),
          mimeTypes: ["image/jpeg", "image/jpeg"],
          addComment: true,
          commentText: "Sunny",
          sortOrder: 2,
        },
        {
          folderId: folder.id,
          type: "file",
          title: "The recipe",
          filePaths: [pdfKey],
          thumbnailPaths: [""],
          fileNames: ["recipe.pdf"],
          fileSizes: [pdf.length],
          mimeTypes: ["application/pdf"],
          askQuestion: true,
          questionText: "Shall we cook it?",
          sortOrder: 3,
        },
      ])
      .run();
  }
  return { user, folder, keys };
}

function unsentCount(folderId: number) {
  const { db, schema, drizzle } = app;
  return db
    .select()
    .from(schema.contentItems)
    .where(
      drizzle.and(
        drizzle.eq(schema.contentItems.folderId, folderId),
        drizzle.isNull(schema.contentItems.sentAt),
      ),
    )
    .all().length;
}

describe("a scheduled send", () => {
  test("gives each recipient one complete message and the sender one copy", async () => {
    const recipients = ["mum@example.com", "dad@example.com", "gran@example.com"];
    const { user, folder, keys } = await seedFolder({
      recipients,
      ccSender: true,
      withFiles: true,
    });

    const result = await app.sending.runSchedulerPass();
    expect(result.opened).toBeGreaterThanOrEqual(1);

    for (const email of recipients) {
      const [message, ...extra] = sink.to(email);
      expect(extra).toHaveLength(0);
      expect(message?.subject).toContain(folder.name);
      expect(message?.html).toContain("A good read");
      expect(message?.html).toContain("https://example.com/story");
      expect(message?.html).toContain("You will like this &lt;b&gt;one&lt;/b&gt;");
      expect(message?.text).toContain("Thinking of you");
      const attachments = message?.attachments ?? [];
      expect(attachments.filter((file) => file.contentType === "image/jpeg")).toHaveLength(2);
      expect(attachments.every((file) => file.contentType !== "image/jpeg" || file.cid)).toBe(true);
      expect(attachments.find((file) => file.filename === "recipe.pdf")).toBeDefined();
      const raw = (name: string) =>
        (message?.headerLines ?? [])
          .filter((line) => line.key === name)
          .map((line) => line.line.replace(/\r?\n\s+/g, " "))
          .join("\n");
      expect(raw("list-unsubscribe")).toContain(app.links.unsubscribeUrl(folder.id, email));
      expect(raw("list-unsubscribe")).toContain("mailto:");
      expect(raw("list-unsubscribe-post")).toContain("List-Unsubscribe=One-Click");
      expect(raw("list-id")).toContain(`folder-${folder.id}`);
      expect(message?.replyTo?.value[0]?.address).toBe(user.email);
      // The send's random token, not its id: unique across restores.
      expect(message?.messageId).toMatch(/^<send-[0-9a-f]{32}-[0-9a-f]{16}@/);
      expect(message?.date).toBeInstanceOf(Date);
      const bodyLink = app.links.compactUnsubscribeUrl(folder.id, email);
      expect(message?.html).toContain(bodyLink);
      expect(message?.text).toContain(bodyLink);
      expect(app.links.expandUnsubscribeCode(bodyLink.split("/u/")[1]!)).toBe(
        app.links.unsubscribeUrl(folder.id, email),
      );
    }
    expect(sink.to(user.email)).toHaveLength(1);

    // Every copy's items link to that copy's own answer page for each item.
    const ledger = app.db
      .select()
      .from(app.schema.sendLedger)
      .where(app.drizzle.eq(app.schema.sendLedger.folderId, folder.id))
      .get()!;
    const copies = app.db
      .select()
      .from(app.schema.sendLedgerRecipients)
      .where(app.drizzle.eq(app.schema.sendLedgerRecipients.ledgerId, ledger.id))
      .all();
    const codesSeen = new Set<string>();
    for (const email of [...recipients, user.email]) {
      const copy = copies.find((row) => row.email === email)!;
      const [message] = sink.to(email);
      for (const body of [message?.html || "", message?.text || ""]) {
        const codes = [...body.matchAll(/\/a\/([0-9a-z]+\.[0-9a-z]+\.[A-Za-z0-9_-]+)/g)].map(
          (match) => match[1]!,
        );
        expect(codes.map(app.links.readAnswerLinkCode)).toEqual(
          ledger.itemIds.map((itemId) => ({ copyId: copy.id, itemId })),
        );
        for (const code of codes) codesSeen.add(code);
      }
      expect(message?.text).toContain(`Send ${user.firstName} a heart or a note`);
    }
    // Nobody's links are anybody else's.
    expect(codesSeen.size).toBe(4 * (recipients.length + 1));

    expect(unsentCount(folder.id)).toBe(0);
    // Kept for the sent archive (and the web version) until its retention ends.
    for (const key of keys) expect(await app.storage.stat(key)).not.toBeNull();
    const after = app.db
      .select()
      .from(app.schema.folders)
      .where(app.drizzle.eq(app.schema.folders.id, folder.id))
      .get();
    expect(after?.lastSentAt).toBeInstanceOf(Date);
    expect(after!.nextSendAt!.getTime()).toBeGreaterThan(Date.now());
    const deliveries = app.db
      .select()
      .from(app.schema.emailDeliveries)
      .where(app.drizzle.eq(app.schema.emailDeliveries.folderId, folder.id))
      .all();
    expect(deliveries.map((row) => row.recipientEmail).sort()).toEqual(
      [...recipients, user.email].sort(),
    );
    expect(deliveries[0]?.contentBreakdown).toEqual({ links: 1, photos: 1, files: 1, musings: 1 });
    // Times are stored as epoch ms and read back as the moment of the send.
    const ledgerRows = app.db.select().from(app.schema.sendLedgerRecipients).all();
    const sentTimes = [
      ...deliveries.map((row) => row.sentAt),
      ...ledgerRows.filter((row) => recipients.includes(row.email)).map((row) => row.sentAt),
    ];
    expect(sentTimes).toHaveLength(2 * recipients.length + 1);
    for (const time of sentTimes) {
      expect(Math.abs(Date.now() - time!.getTime())).toBeLessThan(60_000);
    }
  });

  test("sends once: a second pass and a pass days later find nothing to do", async () => {
    const { folder } = await seedFolder({
      recipients: ["once@example.com"],
      nextSendAt: new Date(Date.now() - 3 * 24 * 3600_000),
    });
    await app.sending.runSchedulerPass();
    await app.sending.runSchedulerPass();
    expect(sink.to("once@example.com")).toHaveLength(1);
    expect(unsentCount(folder.id)).toBe(0);
  });

  test("an empty folder is skipped and its next send still moves on", async () => {
    const { folder } = await seedFolder({ recipients: ["empty@example.com"], items: false });
    await app.sending.runSchedulerPass();
    expect(sink.to("empty@example.com")).toHaveLength(0);
    const after = app.db
      .select()
      .from(app.schema.folders)
      .where(app.drizzle.eq(app.schema.folders.id, folder.id))
      .get();
    expect(after!.nextSendAt!.getTime()).toBeGreaterThan(Date.now());
  });

  test("a send left with nobody pending, not finished, is finished by the next pass without sending", async () => {
    const { db, schema, drizzle, sending, claims } = app;
    const { folder } = await seedFolder({ recipients: ["recorded@example.com"] });
    const ledger = sending.openLedger(folder.id, "crashed-before-finish", "schedule", new Date())!;
    // What a process killed after recording its last recipient leaves behind, claim and all.
    db.update(schema.sendLedgerRecipients)
      .set({ status: "sent", sentAt: new Date(), attempts: 1 })
      .where(drizzle.eq(schema.sendLedgerRecipients.ledgerId, ledger.id))
      .run();
    const [host, boot, namespace, pid, startTicks] = claims.holderId.split("|");
    const claimOf = (start: number) => ({
      claimedBy: [host, boot, namespace, pid, start, "dead00"].join("|"),
      claimedAt: new Date(),
      leaseExpiresAt: new Date(Date.now() + claims.LEASE_MS),
    });
    const ledgerNow = () =>
      db.select().from(schema.sendLedger).where(drizzle.eq(schema.sendLedger.id, ledger.id)).get()!;
    // A live holder (this very process, by pid and start time) keeps its claim.
    db.update(schema.sendLedger)
      .set(claimOf(Number(startTicks)))
      .where(drizzle.eq(schema.sendLedger.id, ledger.id))
      .run();
    await sending.runSchedulerPass();
    expect(ledgerNow().status).toBe("sending");
    // Its pid now belongs to another process (a restart): the claim is free at once.
    db.update(schema.sendLedger)
      .set(claimOf(Number(startTicks) + 1))
      .where(drizzle.eq(schema.sendLedger.id, ledger.id))
      .run();
    expect(await sending.runSchedulerPass()).toEqual({ opened: 0, messages: 0 });
    expect(ledgerNow()).toMatchObject({ status: "sent", claimedBy: null, leaseExpiresAt: null });
    expect(unsentCount(folder.id)).toBe(0);
    expect(sink.to("recorded@example.com")).toHaveLength(0);
  });

  test("a send whose items were all deleted meanwhile finishes without sending", async () => {
    const { db, schema, drizzle, sending } = app;
    const { folder } = await seedFolder({ recipients: ["deleted-items@example.com"] });
    const ledger = sending.openLedger(folder.id, "items-deleted", "schedule", new Date())!;
    db.delete(schema.contentItems).where(drizzle.eq(schema.contentItems.folderId, folder.id)).run();
    expect(await sending.runSchedulerPass()).toEqual({ opened: 0, messages: 0 });
    const after = db
      .select()
      .from(schema.sendLedger)
      .where(drizzle.eq(schema.sendLedger.id, ledger.id))
      .get();
    expect(after).toMatchObject({ status: "failed", claimedBy: null });
    expect(sink.to("deleted-items@example.com")).toHaveLength(0);
  });

  test("two passes at once send each message once", async () => {
    await seedFolder({ recipients: ["race1@example.com", "race2@example.com"] });
    await Promise.all([app.sending.runSchedulerPass(), app.sending.runSchedulerPass()]);
    expect(sink.to("race1@example.com")).toHaveLength(1);
    expect(sink.to("race2@example.com")).toHaveLength(1);
  });

  test("a transient refusal is retried later; a permanent one marks the recipient bounced", async () => {
    sink.refuse.set("later@example.com", 451);
    sink.refuse.set("gone@example.com", 550);
    const { folder } = await seedFolder({
      recipients: ["later@example.com", "gone@example.com", "fine@example.com"],
    });
    await app.sending.runSchedulerPass();
    expect(sink.to("fine@example.com")).toHaveLength(1);
    expect(sink.to("later@example.com")).toHaveLength(0);
    expect(unsentCount(folder.id)).toBe(2);

    await app.sending.runSchedulerPass(new Date(Date.now() + 6 * 60_000));
    expect(sink.to("later@example.com")).toHaveLength(1);
    expect(sink.to("gone@example.com")).toHaveLength(0);
    expect(sink.to("fine@example.com")).toHaveLength(1);
    expect(unsentCount(folder.id)).toBe(0);
    const state = app.db
      .select()
      .from(app.schema.folderRecipientStates)
      .where(app.drizzle.eq(app.schema.folderRecipientStates.folderId, folder.id))
      .all();
    expect(state.find((row) => row.email === "gone@example.com")?.status).toBe("bounced");
  });
});

test("a stored file that is gone keeps its item back; the rest goes, and no other folder waits", async () => {
  const { folder, keys } = await seedFolder({
    recipients: ["broken@example.com"],
    withFiles: true,
  });
  await app.storage.delete(keys[0]!);
  await seedFolder({ recipients: ["unaffected@example.com"] });
  await app.sending.runSchedulerPass();
  expect(sink.to("unaffected@example.com")).toHaveLength(1);
  const [message, ...more] = sink.to("broken@example.com");
  expect(more).toHaveLength(0);
  expect(message?.html).toContain("The recipe");
  expect(message?.html).not.toContain("Holiday");
  // The photo item (beach.jpg gone, hills.jpg there) stays, naming the file it misses.
  expect(unsentTitles(folder.id)).toEqual(["Holiday"]);
  const holiday = app.db
    .select()
    .from(app.schema.contentItems)
    .where(app.drizzle.eq(app.schema.contentItems.title, "Holiday"))
    .all()
    .find((item) => item.folderId === folder.id)!;
  expect(holiday.missingFiles).toEqual([keys[0]]);
  expect(missingFileReason(holiday)).toBe("The file of beach.jpg is missing: add it again");
  const [recipient] = app.db
    .select()
    .from(app.schema.sendLedgerRecipients)
    .where(app.drizzle.eq(app.schema.sendLedgerRecipients.email, "broken@example.com"))
    .all();
  expect(recipient?.status).toBe("sent");
});

/** A link saved without a comment or a question: it waits for its note (docs/decisions/0134-quick-saves-wait-for-a-note.md). */
function addWaitingLink(folderId: number, title: string) {
  return app.db
    .insert(app.schema.contentItems)
    .values({ folderId, type: "link", title, urls: ["https://example.com/later"], sortOrder: 9 })
    .returning()
    .get();
}

function unsentTitles(folderId: number) {
  const { db, schema, drizzle } = app;
  return db
    .select({ title: schema.contentItems.title })
    .from(schema.contentItems)
    .where(
      drizzle.and(
        drizzle.eq(schema.contentItems.folderId, folderId),
        drizzle.isNull(schema.contentItems.sentAt),
      ),
    )
    .all()
    .map((row) => row.title);
}

describe("an item that needs a note", () => {
  test("stays out of a scheduled send and waits in the folder", async () => {
    const { folder } = await seedFolder({ recipients: ["held@example.com"] });
    addWaitingLink(folder.id, "Read later");
    await app.sending.runSchedulerPass();
    const [message, ...extra] = sink.to("held@example.com");
    expect(extra).toHaveLength(0);
    expect(message?.html).toContain("A good read");
    expect(message?.html).not.toContain("Read later");
    expect(unsentTitles(folder.id)).toEqual(["Read later"]);
  });

  test("the sender's copy names what stayed behind; the recipients' copies do not", async () => {
    const { user, folder } = await seedFolder({
      recipients: ["behind-r@example.com"],
      ccSender: true,
    });
    const waiting = addWaitingLink(folder.id, "Read <later>");
    await app.sending.runSchedulerPass();
    const [copy, ...moreCopies] = sink.to(user.email);
    expect(moreCopies).toHaveLength(0);
    expect(copy?.subject).toMatch(/^\[Copy\] /);
    expect(copy?.html).toContain("Only in your copy:");
    expect(copy?.html).toContain(
      `<a href="http://localhost:3000/folders/${folder.id}/items/${waiting.id}/edit"`,
    );
    expect(copy?.html).toContain("Read &lt;later&gt;");
    expect(copy?.text?.replace(/\s+/g, " ")).toContain(
      "1 item stayed behind in the folder, waiting for a note: Read <later>",
    );
    const [theirs] = sink.to("behind-r@example.com");
    expect(theirs?.html).toContain("A good read");
    expect(theirs?.html).not.toContain("Only in your copy");
    expect(theirs?.html).not.toContain("Read &lt;later&gt;");
    expect(unsentTitles(folder.id)).toEqual(["Read <later>"]);
  });

  test("a video still preparing stays out of the send, and the sender's copy names it", async () => {
    const { user, folder } = await seedFolder({
      recipients: ["video-r@example.com"],
      ccSender: true,
    });
    const preparing = app.db
      .insert(app.schema.contentItems)
      .values({
        folderId: folder.id,
        type: "video",
        title: "First steps",
        addComment: true,
        commentText: "Look at her go",
        filePaths: ["u/clip.mov"],
        fileNames: ["clip.mov"],
        fileSizes: [1000],
        mimeTypes: ["video/quicktime"],
        thumbnailPaths: [""],
        videoStatus: "preparing",
        videoProgress: 40,
        sortOrder: 8,
      })
      .returning()
      .get();
    addWaitingLink(folder.id, "Read later");
    await app.sending.runSchedulerPass();
    const [copy] = sink.to(user.email);
    expect(copy?.text?.replace(/\s+/g, " ")).toContain(
      "1 item stayed behind in the folder, waiting for a note: Read later",
    );
    expect(copy?.text?.replace(/\s+/g, " ")).toContain(
      "1 video stayed behind in the folder, not prepared yet: First steps",
    );
    expect(copy?.text?.replace(/\s+/g, " ")).toContain("It goes with the next send once prepared.");
    expect(copy?.html).toContain(
      `<a href="http://localhost:3000/folders/${folder.id}/items/${preparing.id}/edit"`,
    );
    const [theirs] = sink.to("video-r@example.com");
    expect(theirs?.html).toContain("A good read");
    expect(theirs?.html).not.toContain("First steps");
    expect(unsentTitles(folder.id).sort()).toEqual(["First steps", "Read later"]);
  });

  test("a prepared video is sent as its poster, linked to the web version at it, never attached", async () => {
    const { folder } = await seedFolder({ recipients: ["video-sent@example.com"] });
    const poster = await sharp({
      create: { width: 64, height: 36, channels: 3, background: "#30503b" },
    })
      .jpeg()
      .toBuffer();
    const video = app.db
      .insert(app.schema.contentItems)
      .values({
        folderId: folder.id,
        type: "video",
        title: "First steps",
        addComment: true,
        commentText: "Look at her go",
        filePaths: [await storeBytes(Buffer.from("an mp4 stands here"))],
        fileNames: ["steps.mp4"],
        fileSizes: [18],
        mimeTypes: ["video/mp4"],
        thumbnailPaths: [await storeBytes(poster)],
        videoStatus: "ready",
        videoProgress: 100,
        sortOrder: 8,
      })
      .returning()
      .get();
    await app.sending.runSchedulerPass();
    const [message] = sink.to("video-sent@example.com");
    const attachments = message?.attachments ?? [];
    expect(attachments.some((file) => file.contentType.startsWith("video/"))).toBe(false);
    const inline = attachments.find((file) => file.cid === `poster-${video.id}@thoughtfully`);
    expect(inline?.contentType).toBe("image/jpeg");
    expect(inline?.content.equals(poster)).toBe(true);
    // The sink's parser shows an inline picture as its bytes.
    expect(message?.html).toMatch(
      new RegExp(
        `href="http://localhost:3000/v/[^"#]+#item-${video.id}"><img src="data:image/jpeg;base64,${poster.toString("base64").replace(/[+/]/g, "\\$&")}"`,
      ),
    );
    expect(message?.html).toContain("▶ Play the video");
    expect(message?.text).toMatch(
      new RegExp(`Watch the video \\[http://localhost:3000/v/[^\\]]+#item-${video.id}\\]`),
    );
    expect(unsentTitles(folder.id)).toEqual([]);
  });

  test("a sender's copy with nothing behind says nothing of it", async () => {
    const { user } = await seedFolder({ recipients: ["none-behind@example.com"], ccSender: true });
    await app.sending.runSchedulerPass();
    const [copy] = sink.to(user.email);
    expect(copy?.subject).toMatch(/^\[Copy\] /);
    expect(copy?.html).not.toContain("Only in your copy");
  });

  test("a folder where every item waits sends nothing, on schedule or with Send Now", async () => {
    const { user, folder } = await seedFolder({ recipients: ["waits@example.com"], items: false });
    const waiting = addWaitingLink(folder.id, "Only this");
    await app.sending.runSchedulerPass();
    await expect(app.sending.sendNow(user.id, folder.id)).rejects.toThrow(
      /Every item here needs a note first/,
    );
    expect(sink.to("waits@example.com")).toHaveLength(0);
    expect(unsentTitles(folder.id)).toEqual(["Only this"]);

    // Once it has its note, it goes out.
    app.db
      .update(app.schema.contentItems)
      .set({ addComment: true, commentText: "Now with a note" })
      .where(app.drizzle.eq(app.schema.contentItems.id, waiting.id))
      .run();
    expect(await app.sending.sendNow(user.id, folder.id)).toEqual({ messages: 1, pending: 0 });
    expect(sink.to("waits@example.com")[0]?.html).toContain("Now with a note");
    expect(unsentTitles(folder.id)).toEqual([]);
  });
});

describe("Send Now", () => {
  test("sends at once, empties the folder, and refuses an empty or paused folder", async () => {
    const { user, folder } = await seedFolder({
      recipients: ["now@example.com"],
      nextSendAt: new Date(Date.now() + 7 * 24 * 3600_000),
    });
    const result = await app.sending.sendNow(user.id, folder.id);
    expect(result).toEqual({ messages: 1, pending: 0 });
    expect(sink.to("now@example.com")).toHaveLength(1);
    await expect(app.sending.sendNow(user.id, folder.id)).rejects.toThrow(/has content/);
    app.db
      .update(app.schema.folders)
      .set({ isPaused: true, pauseReason: "user" })
      .where(app.drizzle.eq(app.schema.folders.id, folder.id))
      .run();
    await expect(app.sending.sendNow(user.id, folder.id)).rejects.toThrow(/paused/);
  });

  test("another user's folder sends nothing", async () => {
    const { folder } = await seedFolder({
      recipients: ["private@example.com"],
      nextSendAt: new Date(Date.now() + 7 * 24 * 3600_000),
    });
    const { user: intruder } = await seedFolder({ recipients: ["x@example.com"], items: false });
    expect(await app.sending.sendNow(intruder.id, folder.id)).toBeNull();
    expect(sink.to("private@example.com")).toHaveLength(0);
  });
});

describe("a pass's memory", () => {
  /** The distinct statements SQLite compiles while `work` runs. */
  async function statementsCompiledDuring(work: () => Promise<unknown>) {
    const client = app.db.$client;
    const prepare = client.prepare;
    const compiled = new Set<unknown>();
    client.prepare = ((source: string) => {
      const statement = prepare.call(client, source);
      compiled.add(statement);
      return statement;
    }) as typeof prepare;
    try {
      await work();
    } finally {
      client.prepare = prepare;
    }
    return compiled.size;
  }

  test("compiles as many statements for twelve senders as for two (db/connection.ts)", async () => {
    const seed = (count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          seedFolder({ recipients: [`reader${counter}-${index}@example.com`] }),
        ),
      );
    await seed(2);
    const forTwo = await statementsCompiledDuring(() => app.sending.runSchedulerPass());
    await seed(12);
    const forTwelve = await statementsCompiledDuring(() => app.sending.runSchedulerPass());
    expect(forTwo).toBeGreaterThan(5);
    expect(forTwelve).toBeLessThanOrEqual(forTwo + 2);
  });
});
