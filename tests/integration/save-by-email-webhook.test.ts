import crypto from "node:crypto";
import { describe, expect, test } from "vitest";
import { startBuiltServer, waitUntil } from "../support/integration";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 38 over the providers' webhooks, with the real parts of
 * tests/support/save-by-email-world.ts: Mailgun's route to the URL ending in
 * `mime`, SendGrid's signed Inbound Parse, Postmark's JSON; and what must
 * come of a message that may not be saved. A deployment configured for
 * Mailgun (its signing key set) is the world's server; a second server on the
 * same database and files stands for one configured for SendGrid's signing
 * policy. Needs `npm run build` first.
 */
const MAILGUN_KEY = crypto.randomBytes(24).toString("hex");
const world = await startSaveByEmailWorld({ MAILGUN_WEBHOOK_SIGNING_KEY: MAILGUN_KEY });
const {
  DOMAIN,
  WEBHOOK_TOKEN,
  db,
  factories,
  inbox,
  ada,
  folder,
  address,
  recipe,
  smtpSend,
  rawMessage,
  postWebhook,
  itemsOf,
  answersTo,
  refusals,
} = world;
const { WEBHOOK_MAIL_MAX_BODY_BYTES } = await import("~/modules/save-by-email/webhook-mail.server");

const sendgridKeys = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const sendgridServer = await startBuiltServer(
  {
    DATABASE_PATH: process.env.DATABASE_PATH!,
    SMTP_URL: process.env.SMTP_URL!,
    MAIL_FROM: process.env.MAIL_FROM!,
    INBOUND_EMAIL_DOMAIN: DOMAIN,
    INBOUND_EMAIL_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
    DNS_SERVERS: world.dns.address,
    MAILGUN_WEBHOOK_SIGNING_KEY: "",
    SENDGRID_INBOUND_PARSE_PUBLIC_KEY: sendgridKeys.publicKey
      .export({ type: "spki", format: "der" })
      .toString("base64"),
  },
  { dataDir: world.server.dataDir },
);

const basicAuth = (user: string) =>
  `Basic ${Buffer.from(`${user}:${WEBHOOK_TOKEN}`).toString("base64")}`;

/** A form as the provider encodes it: its bytes and their Content-Type. */
async function encoded(fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const request = new Request("http://localhost/", { method: "POST", body: form });
  return {
    body: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get("content-type")!,
  };
}

/** Mailgun's forward() to a route URL: the message as `body-mime`, signed with its key. */
async function postMailgun(
  url: string,
  raw: string,
  { key = MAILGUN_KEY, recipient = address, signed = true } = {},
) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const token = crypto.randomBytes(25).toString("hex");
  const signature = crypto
    .createHmac("sha256", key)
    .update(timestamp + token)
    .digest("hex");
  const { body, contentType } = await encoded({
    recipient,
    "body-mime": raw,
    ...(signed ? { timestamp, token, signature } : {}),
  });
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": contentType, Authorization: basicAuth("api") },
    body,
  });
}

/** SendGrid's Inbound Parse with "POST the raw, full MIME message", signed by `signWith` (or not at all). */
async function postSendgrid(
  raw: string,
  signWith: crypto.KeyObject | null = sendgridKeys.privateKey,
  tamper: (body: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer> = (body) => body,
) {
  const { body, contentType } = await encoded({
    email: raw,
    envelope: JSON.stringify({ to: [address], from: "ada@family.test" }),
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    "Content-Type": contentType,
    Authorization: basicAuth("sendgrid"),
  };
  if (signWith) {
    headers["X-Twilio-Email-Event-Webhook-Timestamp"] = timestamp;
    headers["X-Twilio-Email-Event-Webhook-Signature"] = crypto
      .sign("sha256", Buffer.concat([Buffer.from(timestamp), body]), signWith)
      .toString("base64");
  }
  return fetch(`${sendgridServer.base}/webhooks/save-by-email`, {
    method: "POST",
    headers,
    body: tamper(body),
  });
}

/** Waits for `count` answers to `email`, then a moment more, so that a second one would show. */
async function answersSettle(email: string, count: number) {
  await waitUntil(() => answersTo(email).length >= count, 5000, `${count} answers to ${email}`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  return answersTo(email);
}

/** Ada's recipe under a subject and Message-ID of its own, DKIM-signed by family.test. */
const adasMessage = (subject: string, to = address) =>
  rawMessage({
    ...recipe(to),
    subject,
    messageId: `<${crypto.randomUUID()}@family.test>`,
  });

describe("the providers' webhooks", () => {
  test("Mailgun posts the whole message to the URL ending in mime: saved, and Ada gets exactly one answer", async () => {
    const before = itemsOf(folder.id).length;
    const answers = answersTo("ada@family.test").length;
    const response = await postMailgun(
      `${world.base}/webhooks/save-by-email/mime`,
      await adasMessage("Pea soup"),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ outcome: "saved" });
    expect(itemsOf(folder.id).length).toBe(before + 2);
    const all = await answersSettle("ada@family.test", answers + 1);
    expect(all.slice(answers).map((answer) => answer.subject)).toEqual([
      "Saved 2 items to Family news",
    ]);
  });

  test("Mailgun's signature is checked at the mime URL: a wrong one is refused and nothing stored", async () => {
    const before = itemsOf(folder.id).length;
    const response = await postMailgun(
      `${world.base}/webhooks/save-by-email/mime`,
      await adasMessage("Forged soup"),
      { key: "not-mailguns-key" },
    );
    expect(response.status).toBe(401);
    const unsigned = await postMailgun(
      `${world.base}/webhooks/save-by-email/mime`,
      await adasMessage("Unsigned soup"),
      { signed: false },
    );
    expect(unsigned.status).toBe(401);
    expect(itemsOf(folder.id).length).toBe(before);
  });

  test("a Postmark post that is saved gets exactly one answer", async () => {
    const before = itemsOf(folder.id).length;
    const answers = answersTo("ada@family.test").length;
    const response = await postWebhook({
      RawEmail: await adasMessage("Onion soup"),
      OriginalRecipient: address,
    });
    expect(await response.json()).toEqual({ outcome: "saved" });
    expect(itemsOf(folder.id).length).toBe(before + 2);
    const all = await answersSettle("ada@family.test", answers + 1);
    expect(all.slice(answers).map((answer) => answer.subject)).toEqual([
      "Saved 2 items to Family news",
    ]);
  });

  test("SendGrid with a signing policy: a signed post is saved; unsigned, wrongly signed or altered posts are refused and nothing stored", async () => {
    const before = itemsOf(folder.id).length;
    const files = world.storedFiles();
    const otherKey = crypto.generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
    const refusedPosts = [
      await postSendgrid(await adasMessage("Unsigned"), null),
      await postSendgrid(await adasMessage("Signed by someone else"), otherKey),
      await postSendgrid(
        await adasMessage("Altered"),
        sendgridKeys.privateKey,
        (body) =>
          new Uint8Array(
            Buffer.from(
              Buffer.from(body).toString("latin1").replace("Altered", "Altared"),
              "latin1",
            ),
          ),
      ),
    ];
    expect(refusedPosts.map((response) => response.status)).toEqual([401, 401, 401]);
    expect(itemsOf(folder.id).length).toBe(before);
    expect(world.storedFiles()).toEqual(files);

    const signed = await postSendgrid(await adasMessage("Leek soup"));
    expect(await signed.json()).toEqual({ outcome: "saved" });
    expect(itemsOf(folder.id).length).toBe(before + 2);
  });

  test("a raw message posted as it is, 8-bit Latin-1, reads as written", async () => {
    const before = itemsOf(folder.id).length;
    const latin1 = await world.rawMessageBytes({
      envelope: { from: "ada@family.test", to: [address] },
      raw: Buffer.from(
        [
          "From: Ada <ada@family.test>",
          `To: ${address}`,
          "Subject: =?ISO-8859-1?Q?Cr=E8me?=",
          `Message-ID: <latin1.${Date.now()}@family.test>`,
          "MIME-Version: 1.0",
          "Content-Type: text/plain; charset=ISO-8859-1",
          "Content-Transfer-Encoding: 8bit",
          "",
          "Café recipe, grâce à Bo",
          "",
        ].join("\r\n"),
        "latin1",
      ),
    });
    const response = await fetch(`${world.base}/webhooks/save-by-email`, {
      method: "POST",
      headers: { "Content-Type": "message/rfc822", Authorization: basicAuth("postmark") },
      body: new Uint8Array(latin1),
    });
    expect(await response.json()).toEqual({ outcome: "saved" });
    const added = itemsOf(folder.id).slice(before);
    expect(added.map((item) => [item.type, item.title, item.note])).toEqual([
      ["musing", "Crème", "Café recipe, grâce à Bo"],
    ]);
  });

  test("a body over the webhook's limit is refused with 413", async () => {
    const before = itemsOf(folder.id).length;
    const response = await fetch(`${world.base}/webhooks/save-by-email`, {
      method: "POST",
      headers: { "Content-Type": "message/rfc822", Authorization: basicAuth("postmark") },
      body: new Uint8Array(WEBHOOK_MAIL_MAX_BODY_BYTES + 1).fill(97),
    });
    expect(response.status).toBe(413);
    expect(itemsOf(folder.id).length).toBe(before);
  });
});

describe("mail that may not be saved, over the webhook", () => {
  test("a different From, properly signed by family.test, is dropped, counted and unanswered, over the webhook and over SMTP", async () => {
    const bo = factories.createUser(db, { email: "bo@family.test", firstName: "Bo" });
    const before = itemsOf(folder.id).length;
    const events = refusals().length;
    const sink = world.sink.messages.length;
    const spoof = (from: string, subject: string) => ({ ...recipe(address), from, subject });

    const overWebhook = await postWebhook({
      RawEmail: await rawMessage(spoof("Mallory <mallory@family.test>", "Spoof by webhook")),
      OriginalRecipient: address,
    });
    expect(await overWebhook.json()).toEqual({ outcome: "dropped" });
    // The envelope says Ada (one from Bo is refused at RCPT TO): only the From header tells.
    await smtpSend({
      ...spoof(`Bo <${bo.email}>`, "Spoof by SMTP"),
      envelope: { from: "ada@family.test", to: [address] },
    });

    expect(itemsOf(folder.id).length).toBe(before);
    const added = refusals().slice(events);
    expect(added.map((event) => [event.userId, event.details])).toEqual([
      [ada.id, expect.objectContaining({ reason: "not from the folder owner's verified address" })],
      [ada.id, expect.objectContaining({ reason: "not from the folder owner's verified address" })],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(world.sink.messages.length).toBe(sink);
  });

  test("a wrong code and a rotated code over the webhook store nothing", async () => {
    const other = factories.createFolder(db, ada.id, { name: "Soon rotated" });
    const old = inbox.makeInboxAddress(ada.id, other.id)!;
    inbox.makeInboxAddress(ada.id, other.id);
    for (const to of [`abcdefghijkmnpqr@${DOMAIN}`, old]) {
      const response = await postWebhook({
        RawEmail: await adasMessage("Wrong address", to),
        OriginalRecipient: to,
      });
      expect(await response.json()).toEqual({ outcome: "dropped" });
    }
    expect(itemsOf(other.id)).toEqual([]);
  });

  test("over quota over the webhook: nothing is stored, and the one answer says why", async () => {
    const { folder: target, address: to } = world.fullSender("Cy");
    const files = world.storedFiles();
    const response = await postWebhook({
      RawEmail: await rawMessage({ ...recipe(to), from: "cy@family.test" }),
      OriginalRecipient: to,
    });
    expect(await response.json()).toEqual({ outcome: "refused" });
    expect(itemsOf(target.id)).toEqual([]);
    expect(world.storedFiles()).toEqual(files);
    const answers = await answersSettle("cy@family.test", 1);
    expect(answers.map((answer) => answer.subject)).toEqual(["Nothing saved to Cy's news"]);
  });

  test("really malformed messages from Ada, DKIM-signed, store nothing and the server stays up", async () => {
    const boundary = "==cut==";
    const head = (subject: string, contentType: string) => [
      "From: Ada <ada@family.test>",
      `To: ${address}`,
      `Subject: ${subject}`,
      `Message-ID: <${subject.replace(/\W/g, "")}.${Date.now()}@family.test>`,
      "MIME-Version: 1.0",
      `Content-Type: ${contentType}`,
    ];
    const multipart = `multipart/mixed; boundary="${boundary}"`;
    const messages = {
      unterminated: [
        ...head("Unterminated", multipart),
        "",
        `--${boundary}`,
        "Content-Type: text/plain",
        "",
        "https://example.com/half",
        `--${boundary}`,
        "Content-Type: image/jpeg",
        "Content-Transfer-Encoding: base64",
        'Content-Disposition: attachment; filename="cut.jpg"',
        "",
        world.photo.toString("base64").slice(0, 200),
      ],
      brokenBase64: [
        ...head("Broken base64", multipart),
        "",
        `--${boundary}`,
        "Content-Type: text/plain",
        "",
        "See the photo",
        `--${boundary}`,
        "Content-Type: image/jpeg",
        "Content-Transfer-Encoding: base64",
        'Content-Disposition: attachment; filename="broken.jpg"',
        "",
        "/9j/4AAQ!!!@@@***not base64 at all%%%",
        `--${boundary}--`,
      ],
      hugeHeader: [
        ...head("Huge header", "text/plain"),
        `X-Padding: ${"a".repeat(100 * 1024)}`,
        "",
        "https://example.com/padded",
      ],
    };
    const before = itemsOf(folder.id).length;
    const files = world.storedFiles();
    const outcomes: Record<string, unknown> = {};
    for (const [name, lines] of Object.entries(messages)) {
      const raw = await rawMessage({
        envelope: { from: "ada@family.test", to: [address] },
        raw: `${lines.join("\r\n")}\r\n`,
      });
      const response = await postWebhook({ RawEmail: raw, OriginalRecipient: address });
      outcomes[name] = [response.status, (await response.json()).outcome];
    }
    // A cut or undecodable photo refuses the whole message, its link too: nothing half-saved.
    expect(outcomes).toEqual({
      unterminated: [200, "refused"],
      brokenBase64: [200, "refused"],
      hugeHeader: [200, "dropped"],
    });
    expect(refusals().at(-1)!.details).toMatchObject({ reason: "header section too large" });
    expect(itemsOf(folder.id).length).toBe(before);
    expect(world.storedFiles()).toEqual(files);
    expect((await fetch(`${world.base}/healthz`)).status).toBe(200);
  });
});
