import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, describe, expect, test } from "vitest";
import { createFolder, createItem, createUser } from "#db/factories";
import type { SendFaultPoint } from "~/platform/fault-points";
import {
  launchBuiltServer,
  startSmtpSink,
  thisFilesDataDir,
  waitUntil,
} from "../support/integration";

/**
 * Real processes against one database file and a real SMTP server: `npm run
 * send:due` (one scheduler pass), Send Now and the production server's own
 * scheduler, each stopped at every named point of a send in turn, then
 * resumed by two passes (or two servers) started together.
 * The production code stops itself there (THOUGHTFULLY_FAULT_POINT, SIGKILL),
 * or, while the SMTP server holds back its answer, is killed from outside.
 */
// Read by the app's modules when first imported: the later in-process pass sends to the sink too.
const sink = await startSmtpSink();
const smtpUrl = process.env.SMTP_URL!;
const app = await loadApp();
afterAll(() => app.mailer.closeMailer());

async function loadApp() {
  const [{ db }, schema, sending, mailer, drizzle] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("~/platform/mailer.server"),
    import("drizzle-orm"),
  ]);
  return { db, schema, sending, mailer, drizzle };
}

/** SMTP_MAX_CONNECTIONS's default: as many messages in flight, each with its own window. */
const DEFAULT_CONNECTIONS = 8;

type Run = ChildProcess & { done: Promise<{ code: number | null; signal: string | null }> };

/** A script of ours in its own Node process (tsx as a loader, so SIGKILL reaches the process that sends). */
function run(
  script: string,
  args: string[] = [],
  faultPoint?: string,
  connections = DEFAULT_CONNECTIONS,
): Run {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    env: {
      ...process.env,
      SMTP_URL: smtpUrl,
      SMTP_MAX_CONNECTIONS: String(connections),
      NODE_ENV: "test",
      THOUGHTFULLY_FAULT_POINT: faultPoint ?? "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const done = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      if (code !== 0 && code !== null) console.error(output);
      resolve({ code, signal });
    }),
  );
  return Object.assign(child, { done });
}

const sendDue = (faultPoint?: string, connections?: number) =>
  run("scripts/send-due.ts", [], faultPoint, connections);

let counter = 0;
/** A verified sender's folder, due a minute ago, with one note and `recipients`. */
function seedDueFolder(recipients: string[], ccSender = false) {
  const { db } = app;
  counter += 1;
  const user = createUser(db);
  const folder = createFolder(db, user.id, {
    recipients: recipients.map((email) => ({ name: email.split("@")[0]!, email })),
    ccSender,
    nextSendAt: new Date(Date.now() - 60_000),
  });
  createItem(db, folder.id, { note: `Note ${counter}` });
  return { folder, user, addresses: [...recipients, ...(ccSender ? [user.email] : [])] };
}

type Seeded = ReturnType<typeof seedDueFolder>;

/** Two folders, five messages: the first folder's two recipients and its sender's copy, then the second's two. */
function seedRound(label: string) {
  return [
    seedDueFolder([`${label}-a1@example.com`, `${label}-a2@example.com`], true),
    seedDueFolder([`${label}-b1@example.com`, `${label}-b2@example.com`]),
  ];
}

async function expectKilled(killed: Run) {
  expect(await killed.done).toEqual({ code: null, signal: "SIGKILL" });
}

/** Two passes started together, as two servers' schedulers (or two `send:due`) would. */
async function resumeWithTwoPasses() {
  const [a, b] = [sendDue(), sendDue()];
  expect((await a.done).code).toBe(0);
  expect((await b.done).code).toBe(0);
}

/**
 * Right after a kill: the addresses whose copy the SMTP server accepted but
 * whose "sent" mark is not in the database. Each was in its window (between
 * its "250" and its mark), so at most one per connection of the killed
 * process.
 */
function inTheirWindow(seeded: Seeded[], connections = DEFAULT_CONNECTIONS) {
  const { db, schema, drizzle } = app;
  const marked = new Set(
    db
      .select({ email: schema.sendLedgerRecipients.email })
      .from(schema.sendLedgerRecipients)
      .innerJoin(
        schema.sendLedger,
        drizzle.eq(schema.sendLedger.id, schema.sendLedgerRecipients.ledgerId),
      )
      .where(
        drizzle.and(
          drizzle.inArray(
            schema.sendLedger.folderId,
            seeded.map(({ folder }) => folder.id),
          ),
          drizzle.eq(schema.sendLedgerRecipients.status, "sent"),
        ),
      )
      .all()
      .map(({ email }) => email.toLowerCase()),
  );
  const uncertain = seeded
    .flatMap(({ addresses }) => addresses)
    .filter((email) => sink.to(email).length > 0 && !marked.has(email.toLowerCase()));
  expect(uncertain.length).toBeLessThanOrEqual(connections);
  return uncertain;
}

/**
 * Each address got the issue once; a second copy exactly for the addresses
 * that were in their window when the process died (`inTheirWindow`), with the
 * same Message-ID. Every ledger finished without a claim, every item sent,
 * every folder moved on. A later scheduled send repeats nothing.
 */
async function expectExactlyOnce(seeded: Seeded[], resent: string[]) {
  const { db, schema, drizzle } = app;
  const { eq, inArray } = drizzle;
  for (const { addresses } of seeded) {
    for (const email of addresses) {
      const copies = sink.to(email);
      if (resent.includes(email)) {
        expect(copies, email).toHaveLength(2);
        expect(copies[1]!.messageId, email).toBe(copies[0]!.messageId);
      } else {
        expect(copies, email).toHaveLength(1);
      }
    }
  }
  const folderIds = seeded.map(({ folder }) => folder.id);
  const ledgers = db
    .select()
    .from(schema.sendLedger)
    .where(inArray(schema.sendLedger.folderId, folderIds))
    .all();
  expect(ledgers).toHaveLength(seeded.length);
  for (const ledger of ledgers) {
    expect(ledger).toMatchObject({ status: "sent", claimedBy: null, leaseExpiresAt: null });
  }
  const items = db
    .select()
    .from(schema.contentItems)
    .where(inArray(schema.contentItems.folderId, folderIds))
    .all();
  for (const item of items) expect(item.sentAt, `item ${item.id}`).not.toBeNull();
  for (const { folder } of seeded) {
    const now = db.select().from(schema.folders).where(eq(schema.folders.id, folder.id)).get()!;
    expect(now.lastSentAt).not.toBeNull();
    expect(now.nextSendAt!.getTime()).toBeGreaterThan(Date.now());
  }

  // The folders' next occurrences, now: nothing is left to send.
  const before = sink.messages.length;
  for (const id of folderIds) {
    db.update(schema.folders)
      .set({ nextSendAt: new Date(Date.now() - 1000) })
      .where(eq(schema.folders.id, id))
      .run();
  }
  expect(await app.sending.runSchedulerPass()).toEqual({ opened: 0, messages: 0 });
  expect(sink.messages.length).toBe(before);
}

/** A recipient's own points: at the first message of the round and at the first folder's last (its sender's copy). */
const eachMessage = (point: SendFaultPoint) => [`${point}#1`, `${point}#3`];

const SCHEDULED_POINTS = [
  "ledger-opened",
  "claimed",
  ...eachMessage("before-smtp"),
  ...eachMessage("smtp-accepted"),
  ...eachMessage("recipient-recorded"),
  "before-finish",
  "finished",
  "before-release",
];

describe("npm run send:due stopped at each point of a send", () => {
  test.each(SCHEDULED_POINTS)(
    "killed at %s: resumed by two passes, each message once",
    async (point) => {
      const seeded = seedRound(point.replace("#", "-"));
      await expectKilled(sendDue(point));
      const uncertain = inTheirWindow(seeded);
      if (point.startsWith("smtp-accepted")) expect(uncertain.length).toBeGreaterThan(0);
      await resumeWithTwoPasses();
      await expectExactlyOnce(seeded, uncertain);
    },
    30_000,
  );

  test("killed while the SMTP server holds back its answer: resumed, each message once", async () => {
    const seeded = seedRound("unanswered");
    sink.stallAfter = sink.messages.length + 1;
    const stalled = sink.stalled;
    const killed = sendDue();
    try {
      // The message before it kept (its parse may still be under way), this one held.
      await waitUntil(
        () => sink.stalled > stalled && sink.messages.length >= sink.stallAfter,
        20_000,
        "The message held at the SMTP server",
      );
      killed.kill("SIGKILL");
      await expectKilled(killed);
    } finally {
      sink.stallAfter = Number.POSITIVE_INFINITY;
    }
    expect(seeded.flatMap(({ addresses }) => addresses.flatMap(sink.to.bind(sink)))).toHaveLength(
      1,
    );
    // The one answered may still have been in its window; the one held back was not accepted.
    const uncertain = inTheirWindow(seeded);
    await resumeWithTwoPasses();
    await expectExactlyOnce(seeded, uncertain);
  }, 30_000);
});

/**
 * Several connections with a message each between its "250" and its mark:
 * the SMTP server answers three ends of DATA at once, and the process dies as
 * it reads the first, second or third answer. Each copy still in its window
 * then goes again, with its Message-ID; every other copy goes once.
 */
const CONNECTIONS = 3;

describe(`npm run send:due with ${CONNECTIONS} connections, killed in each connection's window`, () => {
  /** A ledger more than connections, two recipients each: every connection has a message. */
  const seedWindows = (label: string) =>
    Array.from({ length: CONNECTIONS + 1 }, (_, index) =>
      seedDueFolder([`${label}-${index}-a@example.com`, `${label}-${index}-b@example.com`]),
    );

  test.each(Array.from({ length: CONNECTIONS }, (_, index) => index + 1))(
    "killed reading the answer %i of 3 given together: each copy still in its window resent",
    async (hit) => {
      const seeded = seedWindows(`window-${hit}`);
      sink.answerTogether = CONNECTIONS;
      try {
        await expectKilled(sendDue(`smtp-accepted#${hit}`, CONNECTIONS));
      } finally {
        sink.answerTogether = 0;
      }
      // The copies answered before the hit-th were marked as their answers came; the rest of the
      // three were in their windows: one for each connection that had not read its answer.
      const uncertain = inTheirWindow(seeded, CONNECTIONS);
      expect(uncertain).toHaveLength(CONNECTIONS - hit + 1);
      expect(seeded.flatMap(({ addresses }) => addresses.flatMap(sink.to.bind(sink)))).toHaveLength(
        CONNECTIONS,
      );
      await resumeWithTwoPasses();
      await expectExactlyOnce(seeded, uncertain);
    },
    30_000,
  );

  test("killed while the SMTP server holds back three answers: nothing accepted, nothing resent", async () => {
    const seeded = seedWindows("window-unanswered");
    sink.answerTogether = CONNECTIONS + 1;
    const killed = sendDue(undefined, CONNECTIONS);
    try {
      await waitUntil(
        () => sink.held === CONNECTIONS,
        20_000,
        "A message held at its end on every connection",
      );
      killed.kill("SIGKILL");
      await expectKilled(killed);
    } finally {
      sink.answerTogether = 0;
    }
    expect(inTheirWindow(seeded, CONNECTIONS)).toEqual([]);
    await resumeWithTwoPasses();
    await expectExactlyOnce(seeded, []);
  }, 30_000);
});

const SEND_NOW_POINTS = [
  "ledger-opened",
  "claimed",
  "smtp-accepted#1",
  "recipient-recorded#1",
  "before-finish",
  "finished",
  "before-release",
];

describe("Send Now stopped at each point of a send", () => {
  test.each(SEND_NOW_POINTS)(
    "killed at %s: resumed by two passes, each message once",
    async (point) => {
      const { db, schema, drizzle, sending } = app;
      const seeded = seedDueFolder([`now-${point.replace("#", "-")}@example.com`], true);
      // Not due: only Send Now starts this send.
      db.update(schema.folders)
        .set({ nextSendAt: new Date(Date.now() + 7 * 24 * 3_600_000) })
        .where(drizzle.eq(schema.folders.id, seeded.folder.id))
        .run();
      const args = [String(seeded.user.id), String(seeded.folder.id)];
      await expectKilled(run("tests/support/send-now.ts", args, point));
      const uncertain = inTheirWindow([seeded]);
      await resumeWithTwoPasses();
      await expectExactlyOnce([seeded], uncertain);
      // Send Now is open again: a new item goes out at once.
      db.insert(schema.contentItems)
        .values({ folderId: seeded.folder.id, type: "musing", title: "Again", note: "Later" })
        .run();
      expect(await sending.sendNow(seeded.user.id, seeded.folder.id)).toEqual({
        messages: 2,
        pending: 0,
      });
    },
    30_000,
  );
});

test("two schedulers started together send each message once", async () => {
  const seeded = seedRound("together");
  await resumeWithTwoPasses();
  await expectExactlyOnce(seeded, []);
}, 30_000);

/** The production build with its scheduler on, on this test's database, sending to the sink. */
function schedulingServer(faultPoint?: string) {
  return launchBuiltServer(
    {
      NODE_ENV: "test",
      SCHEDULER: "on",
      SMTP_URL: smtpUrl,
      THOUGHTFULLY_FAULT_POINT: faultPoint ?? "",
    },
    { dataDir: thisFilesDataDir() },
  );
}

const SERVER_POINTS = [
  "claimed",
  "smtp-accepted#1",
  "recipient-recorded#3",
  "before-finish",
  "before-release",
];

describe("the server's scheduler stopped at each point of a send", () => {
  test.each(SERVER_POINTS)(
    "killed at %s: resumed by two servers, each message once",
    async (point) => {
      const { db, schema, drizzle } = app;
      const seeded = seedRound(`server-${point.replace("#", "-")}`);
      // The scheduler's pass at start reaches the point.
      const crashed = await schedulingServer(point);
      expect(await crashed.exited, crashed.stderr()).toEqual({ code: null, signal: "SIGKILL" });
      const uncertain = inTheirWindow(seeded);

      const servers = await Promise.all([schedulingServer(), schedulingServer()]);
      try {
        const folderIds = seeded.map(({ folder }) => folder.id);
        const unfinished = () =>
          db
            .select({ id: schema.sendLedger.id })
            .from(schema.sendLedger)
            .where(
              drizzle.and(
                drizzle.inArray(schema.sendLedger.folderId, folderIds),
                drizzle.eq(schema.sendLedger.status, "sending"),
              ),
            )
            .all().length;
        await waitUntil(() => unfinished() === 0, 30_000, "Every send finished");
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
      await expectExactlyOnce(seeded, uncertain);
    },
    60_000,
  );
});
