import crypto from "node:crypto";
import { describe, expect, test } from "vitest";
import { startBuiltServer, startSmtpSink } from "../support/integration";
import type { ReceivedMessage } from "../support/smtp-sink";

/**
 * Issue 39, end to end with real parts: a newsletter goes out through a real
 * SMTP server, each copy carrying its signed token in the return path and a
 * header; then the production build (one database with this process) gets
 * the relays' webhooks, signed with keys made here, and bounce and abuse
 * report messages in the shapes of RFC 3464 and RFC 5965 through the inbound
 * hook. Forged, unsigned, duplicate and never-sent reports change nothing;
 * the hard bounce and the complaint keep the next send, of either sender,
 * away from those mailboxes. Needs `npm run build` first.
 */
const BOUNCE_ADDRESS = "bounces@bounce.thoughtfully.test";
const POSTMARK_TOKEN = crypto.randomBytes(24).toString("hex");
const MAILGUN_KEY = crypto.randomBytes(24).toString("hex");
const sendgridKeys = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const SENDGRID_PUBLIC_KEY = sendgridKeys.publicKey
  .export({ type: "spki", format: "der" })
  .toString("base64");

const SES_TOPIC = "arn:aws:sns:eu-west-1:123456789012:thoughtfully-ses";

const RELAY_SETTINGS = {
  BOUNCE_ADDRESS,
  // The sink's host is no relay's: set, the copies carry Postmark's metadata header.
  SMTP_RELAY: "postmark",
  POSTMARK_WEBHOOK_TOKEN: POSTMARK_TOKEN,
  MAILGUN_WEBHOOK_SIGNING_KEY: MAILGUN_KEY,
  SENDGRID_WEBHOOK_PUBLIC_KEY: SENDGRID_PUBLIC_KEY,
};

const sink = await startSmtpSink();
Object.assign(process.env, RELAY_SETTINGS);
const app = await loadApp();

async function loadApp() {
  const [{ db }, schema, sending, suppressions, tokens, factories, addresses] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/modules/sending/sending.server"),
    import("~/modules/deliverability/suppressions.server"),
    import("~/modules/deliverability/copy-token.server"),
    import("#db/factories"),
    import("~/platform/email-address"),
  ]);
  return { db, schema, sending, suppressions, tokens, factories, addresses };
}

const FAMILY = [
  "mum@example.test",
  "sam@example.test",
  "friend@example.test",
  "dsn.rcpt@example.test",
  "gone.user@gmail.com",
  "arf.rcpt@example.test",
].map((email) => ({ name: email.split("@")[0]!, email }));
const BOOK_CLUB = ["Mum+books@example.test", "SAM@example.test", "other@example.test"].map(
  (email) => ({ name: "Club", email }),
);
const ada = app.factories.createUser(app.db, { email: "ada@example.test", emailVerified: true });
const bea = app.factories.createUser(app.db, { email: "bea@example.test", emailVerified: true });
const family = app.factories.createFolder(app.db, ada.id, { name: "Family", recipients: FAMILY });
const bookClub = app.factories.createFolder(app.db, bea.id, {
  name: "Book club",
  recipients: BOOK_CLUB,
});
const { base } = await startBuiltServer({
  DATABASE_PATH: process.env.DATABASE_PATH!,
  ...RELAY_SETTINGS,
  SES_SNS_TOPIC_ARN: SES_TOPIC,
});

function addItem(folderId: number, title: string) {
  app.db
    .insert(app.schema.contentItems)
    .values({ folderId, type: "musing", title, note: "Hello" })
    .run();
}

/** The one copy `email` got so far, and its token. */
function copyTo(email: string) {
  const [message] = sink.to(email);
  expect(message, email).toBeDefined();
  const token = String((message as ReceivedMessage).headers.get("x-thoughtfully-copy"));
  return { message: message!, token };
}

const suppressed = (email: string) =>
  app.suppressions.suppressionFor(app.addresses.mailboxKey(email)!)?.reason ?? null;

function post(route: string, body: string, headers: Record<string, string>) {
  return fetch(`${base}${route}`, { method: "POST", body, headers });
}

function postmark(event: object, password = POSTMARK_TOKEN) {
  return post("/webhooks/postmark", JSON.stringify(event), {
    "Content-Type": "application/json",
    Authorization: `Basic ${Buffer.from(`postmark:${password}`).toString("base64")}`,
  });
}

function mailgun(eventData: object, key = MAILGUN_KEY) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const token = crypto.randomBytes(25).toString("hex");
  const signature = crypto
    .createHmac("sha256", key)
    .update(timestamp + token)
    .digest("hex");
  return post(
    "/webhooks/mailgun",
    JSON.stringify({ signature: { timestamp, token, signature }, "event-data": eventData }),
    { "Content-Type": "application/json" },
  );
}

function sendgrid(events: object[], privateKey = sendgridKeys.privateKey) {
  const body = JSON.stringify(events);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = crypto.sign("sha256", Buffer.from(timestamp + body), privateKey);
  return post("/webhooks/sendgrid", body, {
    "Content-Type": "application/json",
    "X-Twilio-Email-Event-Webhook-Signature": signature.toString("base64"),
    "X-Twilio-Email-Event-Webhook-Timestamp": timestamp,
  });
}

function inbound(raw: string) {
  return post("/webhooks/inbound-email", raw, { "Content-Type": "message/rfc822" });
}

/** The header block of a copy as the receiving side returns it in a report. */
function returnedHeaders(message: ReceivedMessage) {
  return [
    `From: ${message.from?.text ?? ""}`,
    `To: ${message.envelopeTo[0]}`,
    `Subject: ${message.subject ?? ""}`,
    `Message-ID: ${message.messageId ?? ""}`,
    `X-Thoughtfully-Copy: ${String(message.headers.get("x-thoughtfully-copy"))}`,
  ].join("\r\n");
}

/** A delivery status notification in the shape of RFC 3464's examples. */
function dsn(options: {
  to: string;
  recipient: string;
  status: string;
  returned: string;
  messageId: string;
  from?: string;
}) {
  const boundary = "RAA14128.773615765/CS.UTK.EDU";
  return [
    "Date: Thu, 26 Nov 2026 09:16:05 +0000",
    `From: ${options.from ?? "Mail Delivery Subsystem <MAILER-DAEMON@mx.example.test>"}`,
    `Message-Id: <${options.messageId}>`,
    "Subject: Returned mail: User unknown",
    `To: <${options.to}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=delivery-status;\r\n    boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "",
    "   ----- The following addresses had permanent fatal errors -----",
    `<${options.recipient}>`,
    "",
    `--${boundary}`,
    "content-type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.example.test",
    "",
    `Original-Recipient: rfc822;${options.recipient}`,
    `Final-Recipient: rfc822;${options.recipient}`,
    "Action: failed",
    `Status: ${options.status}`,
    `Diagnostic-Code: smtp; ${options.status.startsWith("5") ? "550 5.1.1 User unknown" : "452 4.2.2 Mailbox full"}`,
    "Last-Attempt-Date: Thu, 26 Nov 2026 09:15:49 +0000",
    "",
    `--${boundary}`,
    "content-type: text/rfc822-headers",
    "",
    options.returned,
    "",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

/** An abuse report in the shape of RFC 5965's example, as Yahoo's complaint feedback loop sends it. */
function arf(options: { originalMailFrom: string; returned: string; messageId: string }) {
  const boundary = "part1_13d.2e68ed54_boundary";
  return [
    "From: <feedback@arf.mail.yahoo.test>",
    "Date: Thu, 26 Nov 2026 09:40:36 +0000",
    "Subject: FW: Spam report",
    `Message-ID: <${options.messageId}>`,
    `To: <${BOUNCE_ADDRESS}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/report; report-type=feedback-report;\r\n     boundary="${boundary}"`,
    "",
    `--${boundary}`,
    'Content-Type: text/plain; charset="US-ASCII"',
    "Content-Transfer-Encoding: 7bit",
    "",
    "This is an email abuse report for an email message received from IP",
    "192.0.2.1 on Thu, 26 Nov 2026 09:00:00 +0000.",
    "",
    `--${boundary}`,
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: Yahoo!-Mail-Feedback/2.0",
    "Version: 1",
    `Original-Mail-From: <${options.originalMailFrom}>`,
    "Original-Rcpt-To: <redacted@yahoo.test>",
    "Arrival-Date: Thu, 26 Nov 2026 09:00:00 +0000",
    "Reporting-MTA: dns; mail.yahoo.test",
    "Source-IP: 192.0.2.1",
    "",
    `--${boundary}`,
    "Content-Type: message/rfc822",
    "Content-Disposition: inline",
    "",
    options.returned,
    "Content-Type: text/plain",
    "",
    "The newsletter, as the recipient saw it.",
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

describe("reports of bounces and complaints", () => {
  test("every copy carries its own signed token, in the return path and the relay's header", async () => {
    addItem(family.id, "First issue");
    await app.sending.sendNow(family.userId, family.id);
    const rows = app.db.select().from(app.schema.sendLedgerRecipients).all();
    for (const { email } of FAMILY) {
      const { message, token } = copyTo(email);
      const row = rows.find((entry) => entry.email === email)!;
      expect(app.tokens.readCopyToken(token)).toBe(row.id);
      expect(message.envelopeFrom).toBe(`bounces+${token}@bounce.thoughtfully.test`);
      expect(message.headers.get("x-thoughtfully-copy")).toBe(token);
      expect(message.headers.get("x-pm-metadata-thoughtfully_copy")).toBe(token);
      // One relay's header, not every relay's.
      expect(message.headers.has("x-mailgun-variables")).toBe(false);
      expect(message.headers.has("x-smtpapi")).toBe(false);
    }
  });

  test("Postmark: a hard bounce with the webhook's password suppresses; a wrong one, or a repeat, changes nothing", async () => {
    const { token } = copyTo("mum@example.test");
    const event = {
      RecordType: "Bounce",
      ID: 4242,
      Type: "HardBounce",
      TypeCode: 1,
      Email: "mum@example.test",
      BouncedAt: "2026-11-26T09:10:00Z",
      Details: "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
      Metadata: { thoughtfully_copy: token },
    };
    const forged = await postmark(event, "not-the-password");
    expect(forged.status).toBe(401);
    expect(suppressed("mum@example.test")).toBeNull();
    const genuine = await postmark(event);
    expect(genuine.status).toBe(200);
    expect(await genuine.json()).toEqual({ recorded: 1, duplicates: 0, unmatched: 0 });
    expect(suppressed("mum@example.test")).toBe("hard_bounce");
    const again = await postmark(event);
    expect(await again.json()).toEqual({ recorded: 0, duplicates: 1, unmatched: 0 });
    const reports = app.db.select().from(app.schema.deliveryReports).all();
    expect(reports.filter((report) => report.source === "postmark")).toHaveLength(1);
  });

  test("Mailgun: a complaint with a valid HMAC suppresses; a bad signature changes nothing", async () => {
    const { token } = copyTo("sam@example.test");
    const event = {
      id: "mg-complaint-1",
      event: "complained",
      timestamp: Date.now() / 1000,
      recipient: "sam@example.test",
      "user-variables": { thoughtfully_copy: token },
    };
    expect((await mailgun(event, "wrong-key")).status).toBe(401);
    expect(suppressed("sam@example.test")).toBeNull();
    const genuine = await mailgun(event);
    expect(genuine.status).toBe(200);
    expect(await genuine.json()).toMatchObject({ recorded: 1 });
    expect(suppressed("sam@example.test")).toBe("complaint");
  });

  test("SendGrid: a bad signature is refused; signed reports naming someone else's copy, or none, suppress nothing", async () => {
    const friend = copyTo("friend@example.test");
    const mumToken = copyTo("mum@example.test").token;
    const friendId = app.tokens.readCopyToken(friend.token)!;
    // Friend's copy id with another copy's mac: what someone who saw one token could try.
    const forgedToken = `c${friendId}-${mumToken.split("-")[1]}`;
    const mallory = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const hard = { event: "bounce", type: "bounce", email: "friend@example.test", timestamp: 1 };
    expect(
      (
        await sendgrid(
          [{ ...hard, sg_event_id: "sg-unsigned", thoughtfully_copy: friend.token }],
          mallory.privateKey,
        )
      ).status,
    ).toBe(401);
    const answer = await sendgrid([
      { ...hard, sg_event_id: "sg-forged", thoughtfully_copy: forgedToken },
      { ...hard, sg_event_id: "sg-no-token" },
      { ...hard, event: "spamreport", sg_event_id: "sg-no-token-2" },
      // One temporary refusal is counted, and suppresses nothing by itself.
      {
        ...hard,
        type: "blocked",
        sg_event_id: "sg-blocked",
        thoughtfully_copy: friend.token,
      },
      { event: "delivered", email: "friend@example.test", sg_event_id: "sg-delivered" },
    ]);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ recorded: 1, duplicates: 0, unmatched: 3 });
    expect(suppressed("friend@example.test")).toBeNull();
  });

  test("Amazon SES: messages from another topic, or with a certificate from anywhere but SNS, are refused unread", async () => {
    const { token } = copyTo("friend@example.test");
    const message = {
      Type: "Notification",
      MessageId: "sns-1",
      TopicArn: SES_TOPIC,
      Timestamp: new Date().toISOString(),
      SignatureVersion: "2",
      Signature: "AAAA",
      SigningCertURL: "https://sns.eu-west-1.amazonaws.com.evil.test/cert.pem",
      Message: JSON.stringify({
        notificationType: "Complaint",
        complaint: { feedbackId: "ses-forged" },
        mail: { headers: [{ name: "X-Thoughtfully-Copy", value: token }] },
      }),
    };
    const json = { "Content-Type": "application/json" };
    expect((await post("/webhooks/ses", JSON.stringify(message), json)).status).toBe(401);
    const otherTopic = { ...message, TopicArn: "arn:aws:sns:eu-west-1:999999999999:mine" };
    expect((await post("/webhooks/ses", JSON.stringify(otherTopic), json)).status).toBe(401);
    expect(suppressed("friend@example.test")).toBeNull();
  });

  test("one route serves every relay's webhook: a name it does not know is not found, and a GET is refused", async () => {
    const json = { "Content-Type": "application/json" };
    expect((await post("/webhooks/sparkpost", "[]", json)).status).toBe(404);
    expect((await post("/webhooks/__proto__", "[]", json)).status).toBe(404);
    expect((await fetch(`${base}/webhooks/sparkpost`)).status).toBe(404);
    const get = await fetch(`${base}/webhooks/mailgun`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  test("bounce and abuse report messages through the inbound hook, matched by the VERP address or the returned headers", async () => {
    const dsnCopy = copyTo("dsn.rcpt@example.test");
    const toVerp = await inbound(
      dsn({
        to: dsnCopy.message.envelopeFrom!,
        recipient: "dsn.rcpt@example.test",
        status: "5.1.1",
        returned: "Subject: (headers stripped by this server)",
        messageId: "dsn-1@mx.example.test",
      }),
    );
    expect(toVerp.status).toBe(200);
    expect(await toVerp.json()).toMatchObject({ outcome: "recorded", suppressed: true });
    expect(suppressed("dsn.rcpt@example.test")).toBe("hard_bounce");

    // Gmail's bounce, to the plain address, matched by the header of the copy it returns.
    const gmailCopy = copyTo("gone.user@gmail.com");
    const gmail = await inbound(
      dsn({
        from: "Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
        to: "no-reply@localhost",
        recipient: "gone.user@gmail.com",
        status: "5.1.1",
        returned: returnedHeaders(gmailCopy.message),
        messageId: "CAGmail-dsn-2@mail.gmail.com",
      }),
    );
    expect(await gmail.json()).toMatchObject({ outcome: "recorded" });
    expect(suppressed("gone.user@gmail.com")).toBe("hard_bounce");

    const arfCopy = copyTo("arf.rcpt@example.test");
    const complaint = await inbound(
      arf({
        originalMailFrom: arfCopy.message.envelopeFrom!,
        returned: returnedHeaders(arfCopy.message),
        messageId: "arf-1@arf.mail.yahoo.test",
      }),
    );
    expect(await complaint.json()).toMatchObject({ outcome: "recorded", suppressed: true });
    expect(suppressed("arf.rcpt@example.test")).toBe("complaint");
  });

  test("report messages with no genuine token, or about an address never sent to, suppress nothing", async () => {
    const friend = copyTo("friend@example.test");
    const forged = friend.token.replace(/.$/, (last) => (last === "0" ? "1" : "0"));
    for (const [index, raw] of [
      // Naming our friend, with no token at all.
      dsn({
        to: BOUNCE_ADDRESS,
        recipient: "friend@example.test",
        status: "5.1.1",
        returned: "To: friend@example.test",
        messageId: "forged-1@evil.test",
      }),
      // A token with a mac that does not match.
      dsn({
        to: `bounces+${forged}@bounce.thoughtfully.test`,
        recipient: "friend@example.test",
        status: "5.1.1",
        returned: `X-Thoughtfully-Copy: ${forged}`,
        messageId: "forged-2@evil.test",
      }),
      // Somebody nobody here ever mailed.
      dsn({
        to: BOUNCE_ADDRESS,
        recipient: "stranger@example.test",
        status: "5.1.1",
        returned: "To: stranger@example.test",
        messageId: "never-1@mx.example.test",
      }),
      arf({
        originalMailFrom: BOUNCE_ADDRESS,
        returned: "To: friend@example.test\r\nSubject: spam",
        messageId: "forged-3@evil.test",
      }),
    ].entries()) {
      const answer = await inbound(raw);
      expect(answer.status, `message ${index}`).toBe(200);
      expect(await answer.json(), `message ${index}`).toEqual({ outcome: "unknown copy" });
    }
    expect(suppressed("friend@example.test")).toBeNull();
    expect(suppressed("stranger@example.test")).toBeNull();
  });

  test("the next send skips the suppressed mailboxes, for every sender's folder", async () => {
    const before = sink.messages.length;
    addItem(family.id, "Second issue");
    addItem(bookClub.id, "This month's book");
    await app.sending.sendNow(family.userId, family.id);
    await app.sending.sendNow(bookClub.userId, bookClub.id);
    const reached = sink.messages
      .slice(before)
      .flatMap((message) => message.envelopeTo)
      .sort();
    expect(reached).toEqual(["friend@example.test", "other@example.test"]);
  });

  test("a 5xx answer while sending is a hard bounce too: no sender mails that mailbox again", async () => {
    const ada = app.factories.createUser(app.db, {
      email: "ada2@example.test",
      emailVerified: true,
    });
    const cara = app.factories.createUser(app.db, {
      email: "cara@example.test",
      emailVerified: true,
    });
    const mine = app.factories.createFolder(app.db, ada.id, {
      recipients: [{ name: "Old", email: "old.address@example.test" }],
    });
    const theirs = app.factories.createFolder(app.db, cara.id, {
      recipients: [
        { name: "Old", email: "Old.Address+news@example.test" },
        { name: "New", email: "new.address@example.test" },
      ],
    });
    sink.refuse.set("old.address@example.test", 550);
    addItem(mine.id, "Hello");
    // Nothing went: Send Now says why rather than "on its way".
    await expect(app.sending.sendNow(ada.id, mine.id)).rejects.toThrow(
      "Every recipient's address bounced",
    );
    expect(suppressed("old.address@example.test")).toBe("hard_bounce");
    const before = sink.messages.length;
    addItem(theirs.id, "Hello");
    await app.sending.sendNow(cara.id, theirs.id);
    expect(sink.messages.slice(before).flatMap((message) => message.envelopeTo)).toEqual([
      "new.address@example.test",
    ]);
  });
});
