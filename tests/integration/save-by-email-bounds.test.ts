import net from "node:net";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import { describe, expect, test } from "vitest";
import { waitUntil } from "../support/integration";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 38, the SMTP receiver's bounds with real parts (the production build,
 * its receiver, a DNS server and an SMTP sink on loopback): the message size,
 * STARTTLS only with a certificate, the flood and answer limits, and no
 * half-saved message when the database refuses the write
 * (docs/decisions/0158-save-by-email.md). Needs `npm run build` first.
 */
const world = await startSaveByEmailWorld();
const { db, factories, inbox, smtpPort, itemsOf, answersTo, refusals, storedFiles, smtpDialog } =
  world;

const MB = 1024 * 1024;

/** One SMTP session with the receiver, as a sending server would hold it. */
async function smtpSession() {
  const connection = new SMTPConnection({ host: "127.0.0.1", port: smtpPort, ignoreTLS: true });
  await new Promise<void>((resolve, reject) => {
    connection.once("error", reject);
    connection.connect(() => resolve());
  });
  return connection;
}

function sendOver(connection: SMTPConnection, envelope: SMTPConnection.Envelope, raw: Buffer) {
  return new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
    connection.send(envelope, raw, (error, info) => (error ? reject(error) : resolve(info))),
  );
}

describe("the SMTP receiver's bounds", () => {
  test("a message over 25 MB is refused with 552, whether its size is declared or not, and nothing is stored or left in the spool", async () => {
    const before = itemsOf(world.folder.id).length;
    const filesBefore = storedFiles();
    const events = refusals().length;
    const header = Buffer.from(
      `From: Ada <ada@family.test>\r\nTo: ${world.address}\r\nSubject: Huge\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const huge = Buffer.concat([header, Buffer.alloc(26 * MB, "https://example.com/x\r\n")]);
    const envelope = { from: "ada@family.test", to: [world.address] };

    // Declared in MAIL FROM (SIZE=…): refused before any data is sent.
    const [, , declared] = await smtpDialog([
      "EHLO mail.family.test",
      `MAIL FROM:<ada@family.test> SIZE=${huge.length}`,
      "QUIT",
    ]);
    expect(declared).toMatch(/^552 /);

    // Not declared: the receiver keeps nothing past the limit and refuses at the end of DATA.
    const undeclared = await smtpSession();
    await expect(sendOver(undeclared, envelope, huge)).rejects.toMatchObject({
      responseCode: 552,
    });
    undeclared.close();

    expect(itemsOf(world.folder.id).length).toBe(before);
    expect(storedFiles()).toEqual(filesBefore);
    expect(world.spooledFiles()).toEqual([]);
    expect(refusals().length).toBe(events);
  }, 60_000);

  test("a client gone in the middle of a message leaves nothing in the spool", async () => {
    const socket = net.connect(world.smtpPort, "127.0.0.1");
    let replies = "";
    socket.on("data", (chunk) => {
      replies += chunk.toString();
    });
    const dialog = [
      "EHLO mail.family.test",
      "MAIL FROM:<ada@family.test>",
      `RCPT TO:<${world.address}>`,
      "DATA",
    ];
    for (const [index, command] of dialog.entries()) {
      await waitUntil(() => (replies.match(/^\d{3} /gm) ?? []).length > index, 5_000, command);
      socket.write(`${command}\r\n`);
    }
    await waitUntil(() => /^354 /m.test(replies), 5_000, "the go-ahead for the data");
    socket.write(
      `From: Ada <ada@family.test>\r\nSubject: Cut\r\n\r\n${"half a message\r\n".repeat(20_000)}`,
    );
    await waitUntil(() => world.spooledFiles().length === 1, 5_000, "the message in the spool");
    socket.destroy();
    await waitUntil(() => world.spooledFiles().length === 0, 5_000, "the spool emptied");
  });

  test("without a certificate STARTTLS is not offered", async () => {
    const [, offered] = await smtpDialog(["EHLO mail.family.test", "QUIT"]);
    expect(offered).toMatch(/^250[- ]SIZE 26214400/m);
    expect(offered).not.toMatch(/STARTTLS/);
  });

  test("the 31st message to a folder's address in an hour is told at RCPT TO to come back later; past 20 answers the messages are saved unanswered", async () => {
    const flo = factories.createUser(db, { email: "flo@family.test", firstName: "Flo" });
    const folder = factories.createFolder(db, flo.id, { name: "Flo's notes" });
    const to = inbox.makeInboxAddress(flo.id, folder.id)!;
    const message = (index: number) => ({
      from: "flo@family.test",
      to,
      subject: `Note ${index}`,
      text: `Thought number ${index}`,
    });
    for (let index = 1; index <= 30; index += 1) await world.smtpSend(message(index));
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(
      Array.from({ length: 30 }, (_, index) => `Note ${index + 1}`),
    );
    expect(answersTo("flo@family.test")).toHaveLength(20);

    // Refused before its data, with a "try later" the sending server's retries outlast.
    const events = refusals().length;
    const [, , , rcpt] = await smtpDialog([
      "EHLO mail.family.test",
      "MAIL FROM:<flo@family.test>",
      `RCPT TO:<${to}>`,
      "QUIT",
    ]);
    expect(rcpt).toMatch(/^452 /);
    await expect(world.smtpSend(message(31))).rejects.toThrow(/452/);
    expect(itemsOf(folder.id)).toHaveLength(30);
    expect(answersTo("flo@family.test")).toHaveLength(20);
    expect(refusals()).toHaveLength(events);
  }, 120_000);

  test("when the database refuses the items, nothing is saved and the files already stored are deleted", async () => {
    const filesBefore = storedFiles();
    const before = itemsOf(world.folder.id).length;
    const pdf = Buffer.from(
      "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n",
      "latin1",
    );
    const sqlite = db.$client;
    sqlite.exec(
      `CREATE TRIGGER refuse_disk_full BEFORE INSERT ON content_items WHEN NEW.title LIKE 'Disk full%'
       BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
    );
    try {
      await expect(
        world.smtpSend({
          ...world.recipe(world.address),
          subject: "Disk full",
          attachments: [
            { filename: "soup.jpg", content: world.photo, contentType: "image/jpeg" },
            { filename: "menu.pdf", content: pdf, contentType: "application/pdf" },
          ],
        }),
      ).rejects.toThrow(/451/);
    } finally {
      sqlite.exec("DROP TRIGGER IF EXISTS refuse_disk_full");
    }
    expect(itemsOf(world.folder.id).length).toBe(before);
    expect(storedFiles()).toEqual(filesBefore);
  });
});
