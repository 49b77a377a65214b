import { afterEach, describe, expect, test, vi } from "vitest";
import { createFolder, createItem, createUser, uniqueEmail } from "#db/factories";
import { startMisbehavingRelay } from "../support/integration";
import type { RelayStage } from "../support/misbehaving-relay";

/**
 * A relay that refuses us, or our message, through the real pass (issue 60): the stage and
 * the codes decide (app/modules/sending/relay-answers.server.ts). Nobody is bounced or
 * suppressed, the operator is told (the admin pages' relayStatus and one log line in the
 * relay's words, never the SMTP password), the send stops at the first refusal, and once the
 * relay answers again each recipient gets the issue once, with its original Message-ID.
 */
const SMTP_PASSWORD = "correct-horse-battery-staple";
const relay = await startMisbehavingRelay({ user: "relay-user", password: SMTP_PASSWORD });
const app = await loadApp();

async function loadApp() {
  const [{ db }, schema, sending, hold, mailer, suppressions, addresses, drizzle, foldersModule] =
    await Promise.all([
      import("~/platform/db.server"),
      import("#db/schema"),
      import("~/modules/sending/sending.server"),
      import("~/modules/sending/relay-hold.server"),
      import("~/platform/mailer.server"),
      import("~/modules/deliverability/suppressions.server"),
      import("~/platform/email-address"),
      import("drizzle-orm"),
      import("~/modules/folders/folders.server"),
    ]);
  return {
    db,
    schema,
    sending,
    hold,
    mailer,
    suppressions,
    addresses,
    drizzle,
    foldersModule,
  };
}

/** Every line the app logs while the test runs. */
function captureLog() {
  const lines: string[] = [];
  for (const level of ["error", "warn", "info", "log"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(" "));
    });
  }
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * A relay that starts over: open sessions (the pool's) end, every stage answers well, and no
 * hold a failed test left behind holds this one.
 */
async function freshRelay() {
  await app.mailer.closeMailer();
  relay.endSessions();
  relay.heal();
  app.db
    .delete(app.schema.relayRefusals)
    .where(app.drizzle.isNull(app.schema.relayRefusals.endedAt))
    .run();
}

function seedDueFolder(recipients: string[], dueAt: Date) {
  const sender = createUser(app.db, { timeZone: "Europe/London" });
  const folder = createFolder(app.db, sender.id, {
    recipients: recipients.map((email, index) => ({ name: `R${index}`, email })),
    nextSendAt: new Date(dueAt.getTime() - 60_000),
  });
  createItem(app.db, folder.id, { title: "Thinking of you" });
  return folder;
}

function ledgersOf(folderId: number) {
  const { db, schema, drizzle } = app;
  return db
    .select()
    .from(schema.sendLedger)
    .where(drizzle.eq(schema.sendLedger.folderId, folderId))
    .all();
}

function copiesOf(ledgerId: number) {
  const { db, schema, drizzle } = app;
  return db
    .select()
    .from(schema.sendLedgerRecipients)
    .where(drizzle.eq(schema.sendLedgerRecipients.ledgerId, ledgerId))
    .all();
}

/** Bounced in some folder, suppressed for every sender, or reported as a hard bounce. */
function touched(email: string) {
  const { db, schema, drizzle, suppressions, addresses } = app;
  const bounced = db
    .select()
    .from(schema.folderRecipientStates)
    .where(
      drizzle.and(
        drizzle.eq(schema.folderRecipientStates.email, email),
        drizzle.eq(schema.folderRecipientStates.status, "bounced"),
      ),
    )
    .all();
  const suppressed = suppressions.suppressionFor(addresses.mailboxKey(email)!);
  return bounced.length > 0 || suppressed !== null;
}

type Wall = {
  name: string;
  stage: RelayStage;
  answer: string;
  /** The stage as the operator reads it. */
  at: string;
  /** A refusal of us holds all sending; one of the message, that send. */
  about: "relay" | "message";
};

const walls: Wall[] = [
  {
    name: "a 554 greeting (our address blocked)",
    stage: "greeting",
    answer: "554 5.7.1 Service unavailable; client host blocked using zen.example",
    at: "connection",
    about: "relay",
  },
  {
    name: "a 535 to AUTH (credentials refused)",
    stage: "auth",
    answer: "535 5.7.8 Authentication credentials invalid",
    at: "AUTH",
    about: "relay",
  },
  {
    name: "a 553 to MAIL FROM (our sender suspended)",
    stage: "mailFrom",
    answer: "553 5.7.1 Sender address rejected: account suspended",
    at: "MAIL FROM",
    about: "relay",
  },
  {
    name: "a 550 5.7.1 to RCPT TO (our sender not authorized)",
    stage: "rcptTo",
    answer: "550 5.7.1 Sender not authorized",
    at: "RCPT TO",
    about: "relay",
  },
  {
    name: "a 552 after DATA (too big for this relay)",
    stage: "dataEnd",
    answer: "552 5.3.4 Message size exceeds fixed maximum message size",
    at: "end of DATA",
    about: "message",
  },
];

describe("the relay refuses us or the message", () => {
  test.each(walls)(
    "$name: nobody is bounced, the operator is told, the issue goes once when it heals",
    async (wall) => {
      await freshRelay();
      const log = captureLog();
      const start = new Date();
      const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);
      const first = Array.from({ length: 3 }, () => uniqueEmail("reader"));
      const second = Array.from({ length: 2 }, () => uniqueEmail("reader"));
      const folders = [seedDueFolder(first, start), seedDueFolder(second, start)];
      const everyone = [...first, ...second];
      relay.at(wall.stage, { answer: wall.answer });
      const wallsMetBefore = relay.seen(wall.stage).length;

      await app.sending.runSchedulerPass(start);

      expect(everyone.flatMap((email) => relay.to(email))).toEqual([]);
      // Each send stops at its first refusal: at most one per send under way, not one per copy.
      expect(relay.seen(wall.stage).length - wallsMetBefore).toBeGreaterThan(0);
      expect(relay.seen(wall.stage).length - wallsMetBefore).toBeLessThanOrEqual(folders.length);
      for (const email of everyone) expect(touched(email), email).toBe(false);
      const ledgers = folders.map((folder) => ledgersOf(folder.id));
      for (const [ledger] of ledgers) {
        expect(copiesOf(ledger!.id).map((copy) => copy.status)).not.toContain("bounced");
        expect(copiesOf(ledger!.id).every((copy) => copy.status === "pending")).toBe(true);
      }

      // The operator is told: on the admin pages and in one log line, in the relay's words.
      const status = app.hold.relayStatus(start);
      if (wall.about === "relay") {
        expect(status.hold).toMatchObject({ stage: wall.at, answer: wall.answer, refusals: 1 });
        expect(status.hold!.nextTryAt!.getTime()).toBeGreaterThan(start.getTime());
      } else {
        expect(status.hold).toBeNull();
        for (const [ledger] of ledgers) {
          expect(status.refusedSends).toContainEqual(
            expect.objectContaining({
              ledgerId: ledger!.id,
              stage: wall.at,
              answer: wall.answer,
              outcome: "waiting",
            }),
          );
        }
      }
      const told = log.filter((line) => line.includes(wall.answer));
      expect(told.length).toBeGreaterThan(0);
      expect(told.every((line) => !line.includes("\n") && line.includes(wall.at))).toBe(true);

      // Before the next try nothing meets the wall again, and a folder due again meanwhile
      // opens no second send of the items still waiting.
      app.db
        .update(app.schema.folders)
        .set({ nextSendAt: at(0.25) })
        .where(app.drizzle.eq(app.schema.folders.id, folders[0]!.id))
        .run();
      const repliesBefore = relay.events.length;
      await app.sending.runSchedulerPass(at(0.5));
      expect(relay.events.length).toBe(repliesBefore);

      // Healed: every recipient gets the issue once, with its original Message-ID.
      relay.heal();
      await app.sending.runSchedulerPass(at(6));
      for (const [index, folder] of folders.entries()) {
        const opened = ledgersOf(folder.id).filter((ledger) => ledger.status !== "skipped");
        expect(opened.map((ledger) => ledger.id)).toEqual([ledgers[index]![0]!.id]);
        expect(opened[0]!.status).toBe("sent");
        for (const email of index === 0 ? first : second) {
          const [message, ...again] = relay.to(email);
          expect(again).toHaveLength(0);
          expect(message?.messageId).toMatch(
            new RegExp(`^<send-${opened[0]!.messageToken}-[0-9a-f]+@`),
          );
        }
      }
      for (const email of everyone) expect(touched(email), email).toBe(false);
      expect(app.hold.relayStatus(at(6)).hold).toBeNull();
      if (wall.about === "relay") {
        expect(app.hold.relayStatus(at(6)).lastHold).toMatchObject({ answer: wall.answer });
        expect(log.some((line) => line.includes("sending resumes"))).toBe(true);
      } else {
        expect(app.hold.relayStatus(at(6)).refusedSends).toContainEqual(
          expect.objectContaining({ ledgerId: ledgers[0]![0]!.id, outcome: "sent" }),
        );
      }
      expect(log.filter((line) => line.includes(SMTP_PASSWORD))).toEqual([]);
    },
  );

  test("a hold is tried again with backoff, one copy at a time", async () => {
    await freshRelay();
    captureLog();
    const start = new Date();
    const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);
    const readers = Array.from({ length: 3 }, () => uniqueEmail("reader"));
    seedDueFolder(readers, start);
    relay.at("mailFrom", { answer: "553 5.7.1 Sender address rejected: account suspended" });
    const tries = () => relay.seen("mailFrom").length;
    const before = tries();

    await app.sending.runSchedulerPass(start);
    expect(tries() - before).toBe(1);
    await app.sending.runSchedulerPass(at(1)); // the first try: refused again
    expect(tries() - before).toBe(2);
    await app.sending.runSchedulerPass(at(2)); // held for two minutes now
    expect(tries() - before).toBe(2);
    await app.sending.runSchedulerPass(at(3));
    expect(tries() - before).toBe(3);
    expect(app.hold.relayStatus(at(3)).hold).toMatchObject({ refusals: 3 });
    expect(app.hold.relayStatus(at(3)).hold!.nextTryAt).toEqual(at(8));

    relay.heal();
    await app.sending.runSchedulerPass(at(8));
    for (const email of readers) expect(relay.to(email)).toHaveLength(1);
    expect(app.hold.relayStatus(at(8)).hold).toBeNull();
  });

  test("a relay that echoes our credentials: the log and the admin pages never show them", async () => {
    await freshRelay();
    const log = captureLog();
    const start = new Date();
    const plain = Buffer.from(`\u0000relay-user\u0000${SMTP_PASSWORD}`).toString("base64");
    relay.at("auth", {
      answer: `535 5.7.8 Bad credentials ${SMTP_PASSWORD} (${plain}) for relay-user`,
    });
    const reader = uniqueEmail("reader");
    seedDueFolder([reader], start);
    await app.sending.runSchedulerPass(start);
    const hold = app.hold.relayStatus(start).hold;
    expect(hold?.answer).toBe(
      "535 5.7.8 Bad credentials [SMTP password] ([SMTP password]) for relay-user",
    );
    expect(log.some((line) => line.includes("[SMTP password]"))).toBe(true);
    expect(log.filter((line) => line.includes(SMTP_PASSWORD) || line.includes(plain))).toEqual([]);
    relay.heal();
    await app.sending.runSchedulerPass(new Date(start.getTime() + 2 * 60_000));
    expect(relay.to(reader)).toHaveLength(1);
  });
});

describe("answers about a recipient", () => {
  test("a 550 5.1.1 to one RCPT TO bounces that recipient only", async () => {
    await freshRelay();
    captureLog();
    const start = new Date();
    const [gone, mum, dad] = ["gone", "mum", "dad"].map((name) => uniqueEmail(name)) as [
      string,
      string,
      string,
    ];
    relay.at("rcptTo", { answer: "550 5.1.1 Recipient address rejected: User unknown" }, gone);
    const folder = seedDueFolder([gone, mum, dad], start);
    await app.sending.runSchedulerPass(start);
    expect(relay.to(mum)).toHaveLength(1);
    expect(relay.to(dad)).toHaveLength(1);
    expect(relay.to(gone)).toHaveLength(0);
    expect(touched(gone)).toBe(true);
    expect(touched(mum) || touched(dad)).toBe(false);
    const [ledger] = ledgersOf(folder.id);
    expect(ledger?.status).toBe("sent");
    expect(copiesOf(ledger!.id).find((copy) => copy.email === gone)?.status).toBe("bounced");
    expect(app.hold.relayStatus(start).hold).toBeNull();
  });

  test("a welcome meeting a relay that refuses us waits, its recipient untouched", async () => {
    await freshRelay();
    captureLog();
    const welcomes = await import("~/modules/sending/welcomes.server");
    const { FolderSchema } = await import("~/modules/folders/folder-validation");
    const owner = createUser(app.db);
    const mum = uniqueEmail("mum");
    const folder = app.foldersModule.createFolder(
      owner.id,
      FolderSchema.parse({
        name: "Family news",
        recipients: [{ name: "Mum", email: mum }],
        frequency: "weekly",
        dayOfWeek: 1,
      }),
    );
    relay.at("mailFrom", { answer: "553 5.7.1 Sender address rejected: account suspended" });
    const start = new Date();
    expect(await welcomes.sendWelcomes(start)).toBe(0);
    expect(touched(mum)).toBe(false);
    expect(welcomes.welcomeStates(folder.id)(mum)?.status).toBe("pending");
    relay.heal();
    expect(await welcomes.sendWelcomes(new Date(start.getTime() + 2 * 60_000))).toBe(1);
    expect(relay.to(mum)).toHaveLength(1);
  });
});
