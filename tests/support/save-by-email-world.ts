import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import nodemailer, { type SendMailOptions } from "nodemailer";
import sharp from "sharp";
import { startDnsServer } from "./dns-server";
import { freePort } from "./free-port";
import { startBuiltServer, startSmtpSink, tempDir } from "./integration";

/**
 * The real parts a save-by-e-mail test needs (issue 38): a DNS server on
 * loopback publishing family.test's DKIM key, DMARC and SPF records; an SMTP
 * sink for the answers; the production build with its SMTP receiver and its
 * webhook on; Ada, her folder "Family news" and its address. `settings` adds
 * or overrides the server's environment. The server's temporary directory is
 * one of the test's, so its spool can be looked into. Call it once, at the
 * top of a test file (top-level await). Needs `npm run build` first.
 */
export async function startSaveByEmailWorld(settings: Record<string, string> = {}) {
  const DOMAIN = "in.thoughtfully.test";
  const WEBHOOK_TOKEN = crypto.randomBytes(24).toString("hex");
  const dkimKeys = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const strangerKeys = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
  const publicKey = dkimKeys.publicKey.export({ type: "spki", format: "der" }).toString("base64");

  const dns = await startDnsServer({
    "sel._domainkey.family.test": `v=DKIM1; k=rsa; p=${publicKey}`,
    "_dmarc.family.test": "v=DMARC1; p=reject",
    "family.test": "v=spf1 -all",
  });
  const sink = await startSmtpSink();
  const smtpPort = await freePort();
  const serverTmp = tempDir();
  const SETTINGS = {
    INBOUND_EMAIL_DOMAIN: DOMAIN,
    INBOUND_EMAIL_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
    DNS_SERVERS: dns.address,
    ...settings,
  };
  Object.assign(process.env, SETTINGS);
  const [{ db }, schema, factories, inbox, drizzle] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("#db/factories"),
    import("~/modules/save-by-email/inbox-addresses.server"),
    import("drizzle-orm"),
  ]);
  const server = await startBuiltServer({
    DATABASE_PATH: process.env.DATABASE_PATH!,
    SMTP_URL: process.env.SMTP_URL!,
    MAIL_FROM: process.env.MAIL_FROM!,
    INBOUND_SMTP_PORT: String(smtpPort),
    INBOUND_SMTP_HOST: "127.0.0.1",
    TMPDIR: serverTmp,
    ...SETTINGS,
  });

  const ada = factories.createUser(db, { email: "ada@family.test", firstName: "Ada" });
  const folder = factories.createFolder(db, ada.id, { name: "Family news" });
  const address = inbox.makeInboxAddress(ada.id, folder.id)!;

  const photo = await sharp({
    create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 120, b: 40 } },
  })
    .jpeg()
    .toBuffer();

  const signedBy = (privateKey: crypto.KeyObject) => ({
    domainName: "family.test",
    keySelector: "sel",
    privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  });

  /** Two links and a photo, forwarded by Ada. */
  const recipe = (to: string): SendMailOptions => ({
    from: "Ada <ada@family.test>",
    to,
    subject: "Fwd: Lentil soup",
    text: "For Sunday, look: https://example.com/soup and https://example.com/bread\n\n-- \nAda",
    attachments: [{ filename: "soup.jpg", content: photo, contentType: "image/jpeg" }],
  });

  /** Sends over SMTP to the app's receiver, DKIM-signed with `key` (family.test's own by default). */
  function smtpSend(message: SendMailOptions, key = dkimKeys.privateKey) {
    return nodemailer
      .createTransport({
        host: "127.0.0.1",
        port: smtpPort,
        secure: false,
        ignoreTLS: true,
        dkim: signedBy(key),
      })
      .sendMail(message);
  }

  /** The message as it would travel, DKIM-signed with `key`. */
  async function rawMessageBytes(message: SendMailOptions, key = dkimKeys.privateKey) {
    const built = await nodemailer
      .createTransport({ streamTransport: true, buffer: true, dkim: signedBy(key) })
      .sendMail(message);
    return built.message as Buffer;
  }

  /** The same, as text (for a provider's JSON). */
  async function rawMessage(message: SendMailOptions, key = dkimKeys.privateKey) {
    return (await rawMessageBytes(message, key)).toString();
  }

  /** A Postmark-shaped inbound post, with the webhook's token as its basic-auth password. */
  function postWebhook(body: unknown, token = WEBHOOK_TOKEN) {
    return fetch(`${server.base}/webhooks/save-by-email`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Basic ${Buffer.from(`postmark:${token}`).toString("base64")}`,
      },
      body: JSON.stringify(body),
    });
  }

  const itemsOf = (folderId: number) =>
    db
      .select()
      .from(schema.contentItems)
      .where(drizzle.eq(schema.contentItems.folderId, folderId))
      .orderBy(schema.contentItems.sortOrder)
      .all();
  const answersTo = (email: string) => sink.messages.filter((m) => m.envelopeTo.includes(email));
  const refusals = () =>
    db
      .select()
      .from(schema.securityEvents)
      .where(drizzle.eq(schema.securityEvents.eventType, "inbound_mail_refused"))
      .all();

  /** Every file under the server's storage directory, sorted. */
  function storedFiles() {
    const dir = path.join(server.dataDir, "uploads");
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .sort();
  }

  /** The files in the server's spool (app/platform/spool.server.ts): messages and attachments being read. */
  function spooledFiles() {
    return fs
      .readdirSync(serverTmp, { recursive: true, withFileTypes: true })
      .filter(
        (entry) =>
          entry.isFile() &&
          path.basename(entry.parentPath) === "spool" &&
          path.basename(path.dirname(entry.parentPath)).startsWith("thoughtfully-process-"),
      )
      .map((entry) => path.join(entry.parentPath, entry.name));
  }

  /**
   * The receiver's replies, its greeting first, to `commands` sent one by one
   * over a plain socket, each once the previous reply is complete; `header`
   * (a PROXY line) goes first.
   */
  function smtpDialog(commands: string[], header = "") {
    return new Promise<string[]>((resolve, reject) => {
      const socket = net.connect(smtpPort, "127.0.0.1", () => {
        if (header) socket.write(header);
      });
      const replies: string[] = [];
      let pending = "";
      socket.on("data", (chunk) => {
        pending += chunk.toString();
        // A reply is complete at its last line, "NNN text" (earlier lines are "NNN-text").
        if (!/^\d{3} .*\r\n$/m.test(pending)) return;
        replies.push(pending);
        pending = "";
        const next = commands[replies.length - 1];
        if (next === undefined) {
          socket.end();
          resolve(replies);
        } else socket.write(`${next}\r\n`);
      });
      socket.on("close", () => resolve(replies));
      socket.on("error", reject);
    });
  }

  /** A sender of family.test whose 50 MB are used up, with an empty folder and its address. */
  function fullSender(firstName: string) {
    const email = `${firstName.toLowerCase()}@family.test`;
    const user = factories.createUser(db, { email, firstName });
    const old = factories.createFolder(db, user.id, { name: "Old" });
    db.insert(schema.contentItems)
      .values({
        folderId: old.id,
        type: "file",
        title: "Big",
        filePaths: ["x"],
        thumbnailPaths: [""],
        fileNames: ["big.pdf"],
        fileSizes: [50 * 1024 * 1024],
        mimeTypes: ["application/pdf"],
      })
      .run();
    const folder = factories.createFolder(db, user.id, { name: `${firstName}'s news` });
    return { email, folder, address: inbox.makeInboxAddress(user.id, folder.id)! };
  }

  return {
    DOMAIN,
    WEBHOOK_TOKEN,
    dkimKeys,
    strangerKeys,
    dns,
    sink,
    smtpPort,
    server,
    base: server.base,
    db,
    schema,
    factories,
    inbox,
    drizzle,
    ada,
    folder,
    address,
    photo,
    signedBy,
    recipe,
    smtpSend,
    rawMessage,
    rawMessageBytes,
    postWebhook,
    itemsOf,
    answersTo,
    refusals,
    storedFiles,
    spooledFiles,
    smtpDialog,
    fullSender,
  };
}
