import fs from "node:fs";
import type { AddressInfo } from "node:net";
import nodemailer from "nodemailer";
import { describe, expect, onTestFinished, test } from "vitest";
import type { SmtpSessionLimits } from "~/modules/save-by-email/smtp-fair-share.server";
import { tempDir, waitUntil } from "../support/integration";
import { openRawSmtpSession, type RawSmtpSession } from "../support/raw-smtp-session";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 59: one address cannot take the SMTP door from everyone else. On the
 * production build's receiver, a greedy address (one loopback address) holds
 * as many sessions as it can, with NOOPs or a trickling DATA, while a fair
 * one (another loopback address) sends Ada's message to her folder. The
 * deadlines are tried on a receiver in this process, made with short ones
 * (createSmtpReceiver's limits). Needs `npm run build` first.
 */
const world = await startSaveByEmailWorld();
const { DOMAIN, smtpPort, address, folder, itemsOf, spooledFiles } = world;
// The spool of the receivers this process makes, apart from the server's.
process.env.TMPDIR = tempDir();
const { createSmtpReceiver } = await import("~/modules/save-by-email/smtp-receiver.server");
const { processFolder } = await import("~/platform/process-folder.server");
const { SMTP_SESSION_LIMITS } = await import("~/modules/save-by-email/smtp-fair-share.server");

/** The receiver's `maxClients`: what one address could hold before. */
const ALL_SLOTS = 20;

/** Ada's message with its own subject, from `localAddress`, as her mail server sends it. */
function sendFrom(localAddress: string, subject: string, port = smtpPort) {
  return nodemailer
    .createTransport({
      host: "127.0.0.1",
      port,
      localAddress,
      secure: false,
      ignoreTLS: true,
      dkim: world.signedBy(world.dkimKeys.privateKey),
    })
    .sendMail({ ...world.recipe(address), subject: `Fwd: ${subject}` });
}

const titlesSaved = () => itemsOf(folder.id).map((item) => item.title);

/** `count` sessions from `localAddress`, each greeted or refused: the greeted ones after EHLO. */
async function holdSessions(localAddress: string, count: number) {
  const sessions = Array.from({ length: count }, () => openRawSmtpSession(smtpPort, localAddress));
  const greetings = await Promise.all(sessions.map((session) => session.reply()));
  const held = sessions.filter((_, index) => greetings[index]!.startsWith("220"));
  for (const session of held) expect(await session.command("EHLO greedy.example")).toMatch(/^250/);
  return { sessions, greetings, held };
}

/** EHLO, MAIL FROM Ada and RCPT TO her folder, then DATA: the session is in its message. */
async function startMessage(session: RawSmtpSession) {
  expect(await session.command("EHLO greedy.example")).toMatch(/^250/);
  expect(await session.command("MAIL FROM:<ada@family.test>")).toMatch(/^250/);
  expect(await session.command(`RCPT TO:<${address}>`)).toMatch(/^250/);
  expect(await session.command("DATA")).toMatch(/^354/);
}

async function quitAll(sessions: RawSmtpSession[]) {
  await Promise.all(
    sessions.map(async (session) => {
      session.socket.end("QUIT\r\n");
      await session.closed;
    }),
  );
}

describe("one address's share of the SMTP door", () => {
  test("an address holding every session it can with NOOPs leaves room for another address's message, and its own sessions go on", async () => {
    const greedy = await holdSessions("127.0.0.2", ALL_SLOTS);
    for (const session of greedy.held) expect(await session.command("NOOP")).toMatch(/^250/);

    await sendFrom("127.0.0.3", "Saved beside the NOOPs");
    expect(titlesSaved()).toContain("Saved beside the NOOPs");

    // Past its share the greedy address was told to come back later, and the rest hold on.
    expect(greedy.held).toHaveLength(SMTP_SESSION_LIMITS.sessionsPerClient);
    for (const greeting of greedy.greetings.filter((text) => !text.startsWith("220"))) {
      expect(greeting).toMatch(/^421 Too many connections from your address/);
    }
    for (const session of greedy.held) expect(await session.command("NOOP")).toMatch(/^250/);
    await quitAll(greedy.sessions);
  });

  test("an address trickling DATA into every session it can leaves room for another address's message; what it trickled leaves the spool with it", async () => {
    const greedy = await holdSessions("127.0.0.4", ALL_SLOTS);
    for (const session of greedy.held) {
      expect(await session.command("MAIL FROM:<ada@family.test>")).toMatch(/^250/);
      expect(await session.command(`RCPT TO:<${address}>`)).toMatch(/^250/);
      expect(await session.command("DATA")).toMatch(/^354/);
    }
    const trickle = setInterval(() => {
      for (const session of greedy.held) session.socket.write("x");
    }, 200);
    try {
      await sendFrom("127.0.0.5", "Saved beside the trickle");
    } finally {
      clearInterval(trickle);
    }
    expect(titlesSaved()).toContain("Saved beside the trickle");
    expect(greedy.held).toHaveLength(SMTP_SESSION_LIMITS.sessionsPerClient);

    for (const session of greedy.held) session.socket.destroy();
    await waitUntil(() => spooledFiles().length === 0, 5_000, "the trickled messages removed");
  });
});

describe("a session's commands", () => {
  /** Commands that carry no message, each answered, none 421: ten of them, the cap. */
  const TEN_WITHOUT_A_MESSAGE = [
    ["EHLO first.example", "250"],
    ["NOOP", "250"],
    ["RSET", "250"],
    ["VRFY ada", "252"],
    ["HELP", "214"],
    ["XYZZY", "500"],
    ["MAIL FROM:<ada@family.test>", "250"], // carries the message on: not counted
    ["MAIL FROM:<ada@family.test>", "503"], // nested
    [`RCPT TO:<nobody@${DOMAIN}>`, "550"],
    ["RSET", "250"],
    ["EHLO again.example", "250"],
  ] as const;

  async function sayNothing(
    session: RawSmtpSession,
    commands: readonly (readonly [string, string])[] = TEN_WITHOUT_A_MESSAGE,
  ) {
    for (const [command, code] of commands) {
      expect(await session.command(command)).toMatch(new RegExp(`^${code}`));
    }
  }

  test("commands that carry no message are answered ten times, the next with 421 and the end", async () => {
    const session = openRawSmtpSession(smtpPort, "127.0.0.6");
    expect(await session.reply()).toMatch(/^220/);
    await sayNothing(session);
    expect(await session.command("NOOP")).toMatch(/^421 Too many commands without a message/);
    await session.closed;
  });

  test("a message between them starts the count again", async () => {
    const session = openRawSmtpSession(smtpPort, "127.0.0.7");
    expect(await session.reply()).toMatch(/^220/);
    // Nine: a tenth would fill the count, and the MAIL after it would be answered 421.
    await sayNothing(session, TEN_WITHOUT_A_MESSAGE.slice(0, -1));
    const raw = await world.rawMessage({ ...world.recipe(address), subject: "Fwd: Between" });
    expect(await session.command("MAIL FROM:<ada@family.test>")).toMatch(/^250/);
    expect(await session.command(`RCPT TO:<${address}>`)).toMatch(/^250/);
    expect(await session.command("DATA")).toMatch(/^354/);
    expect(await session.command(`${raw.replace(/\r?\n/g, "\r\n")}\r\n.`)).toMatch(/^250/);
    expect(titlesSaved()).toContain("Between");
    await sayNothing(session);
    expect(await session.command("QUIT")).toMatch(/^221/);
  });
});

/** The files in the spool of the receivers this process makes. */
/** What this process's spool holds (app/platform/spool.server.ts writes it in this process's folder). */
function spooledHere() {
  return fs.readdirSync(processFolder("spool"));
}

/** A receiver in this process with `limits`, stopped with the test, its clients' sockets first. */
async function receiverWith(limits: Partial<SmtpSessionLimits>) {
  const receiver = createSmtpReceiver(limits);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const opened: RawSmtpSession[] = [];
  onTestFinished(async () => {
    for (const session of opened) session.socket.destroy();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  const { port } = receiver.server.address() as AddressInfo;
  const open = (localAddress: string) => {
    const session = openRawSmtpSession(port, localAddress);
    opened.push(session);
    return session;
  };
  return { receiver, port, open };
}

describe("a session's time", () => {
  test("a message trickling in below the minimum rate is ended with 421, its spool file removed and its session closed; one sent as mail servers send is saved", async () => {
    const { open, port } = await receiverWith({ dataBytesPerSecond: 1_000, dataSlackMs: 2_000 });
    const session = open("127.0.0.8");
    expect(await session.reply()).toMatch(/^220/);
    await startMessage(session);
    let spooled = 0;
    const trickle = setInterval(() => {
      session.socket.write("x");
      spooled = Math.max(spooled, spooledHere().length);
    }, 100);
    try {
      expect(await session.reply()).toMatch(/^421 Message arriving too slowly/);
      await session.closed;
    } finally {
      clearInterval(trickle);
    }
    expect(spooled).toBe(1);
    await waitUntil(() => spooledHere().length === 0, 5_000, "the trickled message removed");

    await sendFrom("127.0.0.8", "Saved at a mail server's pace", port);
    expect(titlesSaved()).toContain("Saved at a mail server's pace");
  });

  test("the session deadline ends a session that keeps busy, with a message arriving at a good pace, and removes what it spooled", async () => {
    const { open, receiver } = await receiverWith({ sessionMs: 2_000 });
    const session = open("127.0.0.9");
    expect(await session.reply()).toMatch(/^220/);
    await startMessage(session);
    let spooled = 0;
    const line = `${"x".repeat(998)}\r\n`;
    const pace = setInterval(() => {
      session.socket.write(line);
      spooled = Math.max(spooled, spooledHere().length);
    }, 50);
    try {
      expect(await session.reply()).toMatch(/^421 Session too long/);
      await session.closed;
    } finally {
      clearInterval(pace);
    }
    expect(spooled).toBe(1);
    await waitUntil(() => spooledHere().length === 0, 5_000, "the message removed");
    await waitUntil(
      () => receiver.sessionsHeldBy("127.0.0.9") === 0,
      5_000,
      "its place given back",
    );
  });

  test("every way a session ends gives its place back: a client that comes and goes, and is refused, is let in again to its share", async () => {
    const SHARE = 2;
    const CLIENT = "127.0.0.10";
    const { open, receiver } = await receiverWith({
      sessionsPerClient: SHARE,
      idleMs: 300,
      sessionMs: 1_000,
      dataBytesPerSecond: 1_000,
      dataSlackMs: 300,
      commandsWithoutMessage: 2,
    });
    const greeted = async () => {
      const session = open(CLIENT);
      expect(await session.reply()).toMatch(/^220/);
      return session;
    };
    const endsWith421 = async (session: RawSmtpSession) => {
      expect(await session.reply()).toMatch(/^421/);
      await session.closed;
    };
    /** Writes `bytes` every 50 ms until the session is closed. */
    const keepWriting = (session: RawSmtpSession, bytes: string) => {
      const writing = setInterval(() => session.socket.write(bytes), 50);
      void session.closed.then(() => clearInterval(writing));
    };
    const ways: Record<string, () => Promise<void>> = {
      "a QUIT": async () => {
        const session = await greeted();
        expect(await session.command("QUIT")).toMatch(/^221/);
        await session.closed;
      },
      "gone before the greeting": async () => {
        const session = open(CLIENT);
        await new Promise((resolve) => session.socket.once("connect", resolve));
        session.socket.destroy();
        await session.closed;
      },
      "gone after the greeting": async () => {
        const session = await greeted();
        session.socket.destroy();
        await session.closed;
      },
      "gone in the middle of a message": async () => {
        const session = await greeted();
        await startMessage(session);
        session.socket.write("Subject: half\r\n\r\nhalf a");
        session.socket.destroy();
        await session.closed;
      },
      "silent past the idle timeout": async () => endsWith421(await greeted()),
      "an error: an HTTP request": async () => {
        const session = await greeted();
        expect(await session.command("GET / HTTP/1.1")).toMatch(/^421/);
        await session.closed;
      },
      "commands without a message": async () => {
        const session = await greeted();
        for (const command of ["NOOP", "NOOP"]) await session.command(command);
        expect(await session.command("NOOP")).toMatch(/^421/);
        await session.closed;
      },
      "a message too slow": async () => {
        const session = await greeted();
        await startMessage(session);
        keepWriting(session, "x");
        await endsWith421(session);
      },
      "the session deadline": async () => {
        const session = await greeted();
        await startMessage(session);
        keepWriting(session, `${"x".repeat(98)}\r\n`);
        await endsWith421(session);
      },
      "refused past its share": async () => {
        const held = await Promise.all(Array.from({ length: SHARE }, greeted));
        const refused = open(CLIENT);
        expect(await refused.reply()).toMatch(/^421 Too many connections from your address/);
        await refused.closed;
        await quitAll(held);
      },
    };
    for (const [way, end] of Object.entries(ways)) {
      for (let time = 0; time <= SHARE; time += 1) await end();
      await waitUntil(
        () => receiver.sessionsHeldBy(CLIENT) === 0,
        5_000,
        `${way}: places given back`,
      );
    }
    const held = await Promise.all(Array.from({ length: SHARE }, greeted));
    expect(await open(CLIENT).reply()).toMatch(/^421 Too many connections from your address/);
    await quitAll(held);
  });
});
