import crypto from "node:crypto";
import fs from "node:fs";
import net, { type AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { renderEmail } from "#emails/render.server";
import { VerifyEmail, verifyEmailSubject } from "#emails/verify-email";

type Mailer = typeof import("./mailer.server");

const html = '<p>Hello <strong>Zoë</strong>, see <a href="https://example.com/x">this</a>.</p>';
const text = "Hello Zoë, see this [https://example.com/x].";

describe("outbox (no SMTP_URL)", () => {
  let mailer: Mailer;
  beforeAll(async () => {
    vi.resetModules();
    mailer = await import("./mailer.server");
  });

  it("writes one .eml file that lists and parses back", async () => {
    const outbox = process.env.OUTBOX_DIR!;
    const { messageId } = await mailer.sendEmail({
      to: "Ada Lovelace <ada@example.com>",
      subject: "Grüße from Thoughtfully ✉",
      html,
      text,
    });
    expect(messageId).toMatch(/^<.+@.+>$/);

    const files = fs.readdirSync(outbox);
    expect(files).toHaveLength(1);
    const [id] = files as [string];
    expect(id).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z-[0-9a-f]{8}\.eml$/);

    const listed = await mailer.listOutbox();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id,
      subject: "Grüße from Thoughtfully ✉",
      to: "Ada Lovelace <ada@example.com>",
    });
    expect(Math.abs(Date.now() - listed[0]!.date.getTime())).toBeLessThan(60_000);

    const raw = fs.readFileSync(`${outbox}/${id}`);
    expect(raw.includes("\r\n")).toBe(false); // newline: "unix"
    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe("Grüße from Thoughtfully ✉");
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : []).toEqual([
      { name: "Ada Lovelace", address: "ada@example.com" },
    ]);
    expect(parsed.from?.value).toEqual([{ name: "Thoughtfully", address: "no-reply@localhost" }]);
    expect(parsed.html).toBe(html);
    expect(parsed.text?.trim()).toBe(text);
    expect(parsed.messageId).toBe(messageId);

    const message = await mailer.readOutboxMessage(id);
    expect(message).toMatchObject({
      id,
      subject: "Grüße from Thoughtfully ✉",
      to: "Ada Lovelace <ada@example.com>",
      from: "Thoughtfully <no-reply@localhost>",
      html,
    });
    expect(message?.text?.trim()).toBe(text);
    expect(message?.raw).toContain("Subject: ");
  });

  it("lists newest first and reads the bodies beside an attachment", async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await mailer.sendEmail({
      to: "b@example.com",
      cc: "c@example.com",
      subject: "Second",
      html: `<p>${"Long line with ünïcödé ".repeat(40)}</p>`,
      text: "Second text",
      attachments: [{ filename: "note.txt", content: "attached" }],
    });
    const listed = await mailer.listOutbox();
    expect(listed.map((entry) => entry.subject)).toEqual(["Second", "Grüße from Thoughtfully ✉"]);
    const message = await mailer.readOutboxMessage(listed[0]!.id);
    expect(message?.cc).toBe("c@example.com");
    expect(message?.html).toBe(`<p>${"Long line with ünïcödé ".repeat(40)}</p>`);
    expect(message?.text).toBe("Second text");
  });

  it("reads back a rendered e-mail and a long non-ASCII subject exactly", async () => {
    const rendered = renderEmail(
      VerifyEmail({ firstName: "Zoë", verifyUrl: "http://localhost:3000/verify-email?token=t" }),
    );
    const subject = `${verifyEmailSubject} ${"— Grüße, Zoë ✉ ".repeat(8).trim()}`;
    await mailer.sendEmail({ to: "Zoë Ångström <zoe@example.com>", subject, ...rendered });
    const [newest] = await mailer.listOutbox();
    expect(newest?.subject).toBe(subject);
    expect(newest?.to).toBe("Zoë Ångström <zoe@example.com>");
    const message = await mailer.readOutboxMessage(newest!.id);
    expect(message?.subject).toBe(subject);
    expect(message?.html).toBe(rendered.html);
    expect(message?.text).toBe(rendered.text);
    const parsed = await simpleParser(message!.raw);
    expect(parsed.subject).toBe(subject);
  });

  it("refuses ids that are not plain outbox file names", async () => {
    expect(await mailer.readOutboxMessage("../../etc/passwd")).toBeNull();
    expect(await mailer.readOutboxMessage("..eml")).toBeNull();
    expect(await mailer.readOutboxMessage("a/b.eml")).toBeNull();
    expect(await mailer.readOutboxMessage("missing.eml")).toBeNull();
    expect(await mailer.readOutboxMessage("")).toBeNull();
  });

  it("ignores files that are not finished messages", async () => {
    const outbox = process.env.OUTBOX_DIR!;
    fs.writeFileSync(`${outbox}/half-written.eml.tmp`, "Subject: nope\n\n");
    fs.writeFileSync(`${outbox}/notes.txt`, "Subject: nope\n\n");
    expect((await mailer.listOutbox()).map((entry) => entry.subject)).not.toContain("nope");
  });
});

/**
 * A real SMTP server on loopback that keeps what it receives, and the mailer
 * module loaded afresh with SMTP_URL pointing at it.
 */
async function startSmtpServer(received: Buffer[], options: SMTPServerOptions = {}) {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    ...options,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push(Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  process.env.SMTP_URL = `smtp://127.0.0.1:${port}`;
  vi.resetModules();
  const mailer: Mailer = await import("./mailer.server");
  return { server, mailer };
}

describe("SMTP (SMTP_URL set)", () => {
  const received: Buffer[] = [];
  let server: SMTPServer;
  let mailer: Mailer;

  beforeAll(async () => {
    ({ server, mailer } = await startSmtpServer(received));
  });

  afterEach(() => {
    received.length = 0;
  });

  afterAll(async () => {
    await mailer.closeMailer();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    delete process.env.SMTP_URL;
  });

  it("delivers the message with headers and attachments, writing nothing to the outbox", async () => {
    const before = fs.existsSync(process.env.OUTBOX_DIR!)
      ? fs.readdirSync(process.env.OUTBOX_DIR!).length
      : 0;
    const { messageId } = await mailer.sendEmail({
      to: "ada@example.com",
      replyTo: "support@thoughtfully.app",
      subject: "Your weekly folder",
      html,
      text,
      headers: { "List-Unsubscribe": "<https://thoughtfully.example/u/abc>" },
      attachments: [{ filename: "notes.pdf", content: Buffer.from("%PDF-1.4 test") }],
    });

    expect(received).toHaveLength(1);
    const parsed = await simpleParser(received[0]!);
    expect(parsed.messageId).toBe(messageId);
    expect(parsed.subject).toBe("Your weekly folder");
    expect(parsed.from?.value).toEqual([{ name: "Thoughtfully", address: "no-reply@localhost" }]);
    expect(parsed.replyTo?.text).toBe("support@thoughtfully.app");
    expect(parsed.headerLines.find((header) => header.key === "list-unsubscribe")?.line).toBe(
      "List-Unsubscribe: <https://thoughtfully.example/u/abc>",
    );
    expect(parsed.attachments.map((attachment) => attachment.filename)).toEqual(["notes.pdf"]);
    expect(parsed.attachments[0]?.content.toString()).toBe("%PDF-1.4 test");
    expect(parsed.html).toBe(html);
    expect(parsed.text?.trim()).toBe(text);

    const after = fs.existsSync(process.env.OUTBOX_DIR!)
      ? fs.readdirSync(process.env.OUTBOX_DIR!).length
      : 0;
    expect(after).toBe(before);
  });

  it("holds the message's last byte until waitBeforeEnd resolves", async () => {
    let letEnd!: () => void;
    const turn = new Promise<void>((resolve) => (letEnd = resolve));
    let asked = 0;
    const sending = mailer.sendEmail({
      to: "ada@example.com",
      subject: "Held back",
      html,
      text,
      waitBeforeEnd: () => {
        asked += 1;
        return turn;
      },
    });
    while (asked === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(0);
    letEnd();
    await sending;
    expect(received).toHaveLength(1);
    expect((await simpleParser(received[0]!)).subject).toBe("Held back");
  });

  it("a held-back message larger than its gathered pieces arrives whole", async () => {
    // 200 KB of noise: several of the 64 KB pieces the held-back stream gathers.
    const noise = crypto.randomBytes(200 * 1024);
    await mailer.sendEmail({
      to: "ada@example.com",
      subject: "Large and held",
      html,
      text,
      attachments: [{ filename: "noise.bin", content: noise }],
      waitBeforeEnd: () => Promise.resolve(),
    });
    const parsed = await simpleParser(received[0]!);
    expect(parsed.html).toBe(html);
    expect(parsed.attachments[0]?.content.equals(noise)).toBe(true);
  });

  it("sends no end when waitBeforeEnd rejects: the server accepts nothing", async () => {
    await expect(
      mailer.sendEmail({
        to: "ada@example.com",
        subject: "Given up",
        html,
        text,
        waitBeforeEnd: () => Promise.reject(new Error("given back")),
      }),
    ).rejects.toThrow("given back");
    await mailer.sendEmail({ to: "ada@example.com", subject: "Next", html, text });
    const subjects = await Promise.all(
      received.map(async (raw) => (await simpleParser(raw)).subject),
    );
    expect(subjects).toEqual(["Next"]);
  });

  it("reuses the pooled transport for further messages", async () => {
    await Promise.all(
      ["one", "two", "three"].map((subject) =>
        mailer.sendEmail({ to: "ada@example.com", subject, html, text }),
      ),
    );
    const subjects = await Promise.all(
      received.map(async (raw) => (await simpleParser(raw)).subject),
    );
    expect(subjects.sort()).toEqual(["one", "three", "two"]);
  });
});

describe("SMTP server closing a pooled connection", () => {
  const received: Buffer[] = [];
  const mailFromReplies: number[] = [];
  let refuseNext: number[] = [];
  let server: SMTPServer;
  let mailer: Mailer;

  beforeAll(async () => {
    ({ server, mailer } = await startSmtpServer(received, {
      onMailFrom(_address, _session, callback) {
        const code = refuseNext.shift();
        mailFromReplies.push(code ?? 250);
        if (!code) return callback();
        callback(Object.assign(new Error("Closing connection"), { responseCode: code }));
      },
    }));
  });

  afterEach(() => {
    received.length = 0;
    mailFromReplies.length = 0;
    refuseNext = [];
  });

  afterAll(async () => {
    await mailer.closeMailer();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    delete process.env.SMTP_URL;
  });

  it("sends again at once, and only once, when a pooled connection meets 421 at MAIL FROM", async () => {
    // A first message leaves the pooled connection open, as between two sends.
    await mailer.sendEmail({ to: "ada@example.com", subject: "Before", html, text });
    refuseNext = [421];
    await mailer.sendEmail({ to: "ada@example.com", subject: "After a timeout", html, text });
    expect(mailFromReplies).toEqual([250, 421, 250]);
    expect(received).toHaveLength(2);
    expect((await simpleParser(received[1]!)).subject).toBe("After a timeout");
  });

  it("leaves other refusals to the sending ledger", async () => {
    refuseNext = [451];
    await expect(
      mailer.sendEmail({ to: "ada@example.com", subject: "Busy", html, text }),
    ).rejects.toMatchObject({ responseCode: 451 });
    expect(mailFromReplies).toEqual([451]);
    expect(received).toHaveLength(0);
  });

  it("leaves a 421 on a new connection, the server refusing, to the sending ledger", async () => {
    // One pooled connection, used once: its 421 is retried on a new one, whose 421 is not.
    await mailer.closeMailer();
    await mailer.sendEmail({ to: "ada@example.com", subject: "Before", html, text });
    refuseNext = [421, 421];
    await expect(
      mailer.sendEmail({ to: "ada@example.com", subject: "Closing", html, text }),
    ).rejects.toMatchObject({ responseCode: 421 });
    expect(mailFromReplies).toEqual([250, 421, 421]);
    expect(received).toHaveLength(1);
  });
});

describe("the SMTP connection (TCP_NODELAY, TLS kept)", () => {
  type Session = { secure: boolean };
  const cases = [
    { name: "plain SMTP", server: { disabledCommands: ["STARTTLS"] }, query: "" },
    { name: "STARTTLS", server: {}, query: "?requireTLS=true&tls.rejectUnauthorized=false" },
    {
      name: "implicit TLS (smtps://)",
      server: { secure: true },
      query: "?tls.rejectUnauthorized=false",
      scheme: "smtps",
    },
  ];

  for (const { name, server: serverOptions, query, scheme = "smtp" } of cases) {
    it(`${name}: delivers over a connection with Nagle off`, async () => {
      const sessions: Session[] = [];
      const server = new SMTPServer({
        authOptional: true,
        logger: false,
        ...serverOptions,
        onData(stream, session, callback) {
          stream.resume();
          stream.on("end", () => {
            sessions.push({ secure: session.secure });
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.server.address() as AddressInfo;
      const setNoDelay = vi.spyOn(net.Socket.prototype, "setNoDelay");
      process.env.SMTP_URL = `${scheme}://127.0.0.1:${port}${query}`;
      vi.resetModules();
      const mailer: Mailer = await import("./mailer.server");
      try {
        await mailer.sendEmail({ to: "ada@example.com", subject: name, html, text });
        expect(sessions).toEqual([{ secure: name !== "plain SMTP" }]);
        // The pooled connection is still open: its socket tells where it leads.
        const toServer = setNoDelay.mock.contexts.flatMap((socket, index) =>
          (socket as net.Socket).remotePort === port ? [setNoDelay.mock.calls[index]] : [],
        );
        expect(toServer).toEqual([[true]]);
      } finally {
        setNoDelay.mockRestore();
        await mailer.closeMailer();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        delete process.env.SMTP_URL;
      }
    });
  }
});

describe("the benchmarks measure the production transport", () => {
  for (const bench of ["bench/send.ts", "bench/scale.ts"]) {
    it(`${bench} builds its baseline with createSmtpTransport and does not set TCP_NODELAY itself`, () => {
      const source = fs.readFileSync(bench, "utf8");
      expect(source).toContain("mailer.createSmtpTransport(smtpUrl)");
      expect(source).not.toMatch(/setNoDelay|net\.connect|noDelay/);
    });
  }
});
