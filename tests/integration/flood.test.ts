import { fork } from "node:child_process";
import { setMaxListeners } from "node:events";
import os from "node:os";
import { Readable } from "node:stream";
import { dkimSign } from "mailauth";
import nodemailer from "nodemailer";
import { beforeAll, describe, expect, test } from "vitest";
import { LIMITS } from "~/modules/plans/limits";
import { SMTP_SESSION_LIMITS } from "~/modules/save-by-email/smtp-fair-share.server";
import { MAX_UNFINISHED_BODIES_PER_CLIENT } from "~/platform/client-shares.server";
import {
  type BodyShape,
  concretePath,
  csrfTokenIn,
  multipartBody,
  type Post,
  type PostAnswer,
  postLargeBody,
  routesWithActions,
  sampleRss,
  signedInSessionCookie,
  urlencodedBody,
} from "../support/body-attacks";
import { cheapPasswordHash } from "../support/cheap-password-hash";
import { holdSlowBodies, holdSmtpSessions } from "../support/greedy-client";
import { cookieFrom, requestFrom } from "../support/http-from";
import { tempDir, waitUntil } from "../support/integration";
import { startSaveByEmailWorld } from "../support/save-by-email-world";

/**
 * Issue 44 (item 6): every door of the production server at once, on a
 * machine as fly.toml sizes it (512 MB, the heap capped at 256 MB, which
 * startServer passes as in production). Fifty 40 MB bodies at a time to
 * every route that reads one, signed in and signed out, as forms, chunked
 * and multipart (a valid session's valid CSRF token on the multipart posts
 * of a link, a musing and an item's edit: bodies the routes read whole);
 * twenty SMTP sessions each sending Ada's folder a message just under the
 * size limit; 5 MB posts to the save-by-email webhook and the relays'.
 *
 * Meanwhile the process must live, stay within its machine's memory (see
 * BOUNDS), answer /healthz, let a person sign in and save a musing
 * through the real forms; afterwards nothing saved before is lost, and
 * whatever the server said yes to is saved. An attack may be refused (413,
 * 400, 401, 403, 404, a sign-in redirect, 429/503 with Retry-After), never
 * taken. The flood comes from many addresses, as a botnet's would (one
 * address may hold only its share: docs/memory-budget.md), Bea from her own.
 *
 * Issue 59: then one greedy address holds 600 slow bodies and 20 SMTP
 * sessions, while Bea, from another, signs in, saves a musing, uploads a
 * photo through the API and mails a folder's address, each as quickly as
 * she did on the idle server (within 2 s, or ten times her idle time on a
 * machine so busy that idle took longer).
 *
 * Times are asserted only where something must never happen (a health check
 * past Fly's 5 s); the p99s are printed beside the same run's idle figures.
 * The file runs alone (vitest.config.ts, the "flood" project).
 * Needs `npm run build` first.
 */
const MB = 1024 * 1024;

const FLOOD = {
  /** HTTP bodies in flight at once. */
  httpAttackers: 50,
  httpBodyBytes: 40 * MB,
  smtpSessions: 20,
  /** Just under what the receiver takes (LIMITS.saveByEmail.maxMessageBytes). */
  smtpMessageBytes: LIMITS.saveByEmail.maxMessageBytes - 64 * 1024,
  /** To the save-by-email webhook, and as many to the relays' webhooks. */
  webhookPosts: 10,
  webhookBodyBytes: 5 * MB,
  /** The person starts once the attackers have sent this much. */
  personStartsAfterBytes: 256 * MB,
  /** Whatever is still unanswered this long after the start counts as never answered. */
  deadlineMs: 120_000,
};

/**
 * Issue 44 asks for RSS under 400 MB and /healthz at p99 under 1 s (printed,
 * not asserted: issue 59). The checks come from a process of their own, as
 * Fly's come from another machine; each is on a new connection, so it waits
 * in the accept queue behind the attackers' (docs/memory-budget.md, decision 0233).
 */
const BOUNDS = {
  rssBytes: 400 * MB,
  /** fly.toml's check: every 15 s, failed past 5 s. */
  healthzCheckTimeoutMs: 5_000,
  healthzIntervalMs: 15_000,
};

const SAMPLE_EVERY_MS = 100;

/** Which client the server sees: any address of 127.0.0.0/8 reaches it on loopback. */
const ADDRESSES = {
  bea: "127.0.0.2",
  greedy: "127.0.0.3",
  /** The flood's bodies, from 200 addresses in turn. */
  bot: (index: number) => `127.0.1.${(index % 200) + 1}`,
  /** The flood's SMTP sessions and webhook posts, each from an address of its own. */
  mailBot: (index: number) => `127.0.2.${(index % 200) + 1}`,
};

/** The greedy client of issue 59: one address, with as much as it can hold. */
const GREEDY = { slowBodies: 600, smtpSessions: 20, noopEveryMs: 1_000 };
/** Bea's each step under the greedy client: within 2 s, or ten times her idle time. */
const FAIR = { withinMs: 2_000, idleFactor: 10 };

// Billing configured, so the Stripe webhook reads its body too (unconfigured, it answers 503 unread).
const world = await startSaveByEmailWorld({
  STRIPE_SECRET_KEY: "sk_test_flood",
  STRIPE_PRICE_ID: "price_flood",
  STRIPE_WEBHOOK_SECRET: "whsec_flood",
});
const { server, base, db, schema, factories, inbox, drizzle, ada, folder: familyNews } = world;
const SESSION_SECRET = process.env.SESSION_SECRET!;

/** Ada's second folder: the webhook's mail goes there (each address has its own hourly allowance). */
const holiday = factories.createFolder(db, ada.id, { name: "Holiday" });
const holidayAddress = inbox.makeInboxAddress(ada.id, holiday.id)!;

/** Bea uses the app as usual: she has a password, and signs in through the form during the flood. */
const BEA_PASSWORD = "bea-password-123";
const bea = factories.createUser(db, {
  firstName: "Bea",
  passwordHash: cheapPasswordHash(BEA_PASSWORD),
});
const beasNotes = factories.createFolder(db, bea.id, { name: "Bea's notes" });
const { createApiToken } = await import("~/modules/api/api-tokens.server");
const beasToken = createApiToken(bea.id, { name: "Bea's phone", scope: "write" }).token;

/** Mallory is signed in too, with a folder and a musing of her own, and attacks from there. */
const mallory = factories.createUser(db, { firstName: "Mallory" });
const mallorysFolder = factories.createFolder(db, mallory.id, { name: "Mallory's" });
const mallorysItem = factories.createItem(db, mallorysFolder.id);
const malloryCookie = await signedInSessionCookie(db, mallory.id, SESSION_SECRET);

// ---------------------------------------------------------------------------------------------
// The person

/** The CSRF token (and the cookie it is bound to, before sign-in) of a page as `cookie` loads it, from Bea's address. */
async function formOf(path: string, cookie?: string, signal = AbortSignal.timeout(30_000)) {
  const response = await requestFrom(ADDRESSES.bea, `${base}${path}`, {
    headers: cookie ? { Cookie: cookie } : {},
    signal,
  });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
  const csrfCookie = cookieFrom(response, "thoughtfully_csrf");
  return { csrf: csrfTokenIn(response.text), cookie: csrfCookie ?? cookie ?? "" };
}

/** A form posted as a browser posts it, from Bea's address; the answer is not followed. */
function submit(
  path: string,
  cookie: string,
  fields: Record<string, string>,
  signal = AbortSignal.timeout(30_000),
) {
  return requestFrom(ADDRESSES.bea, `${base}${path}`, {
    method: "POST",
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    signal,
  });
}

/** Bea signs in through the real /login form; her session cookie, or why not. */
async function beaSignsIn(signal: AbortSignal) {
  const started = performance.now();
  const login = await formOf("/login", undefined, signal);
  const response = await submit(
    "/login",
    login.cookie,
    { csrf: login.csrf, email: bea.email, password: BEA_PASSWORD },
    signal,
  );
  const session = cookieFrom(response, "thoughtfully_session");
  return { status: response.status, session, ms: performance.now() - started };
}

/** Bea adds a musing through the real form of her folder. */
async function beaAddsAMusing(session: string, title: string, signal?: AbortSignal) {
  const started = performance.now();
  const path = `/folders/${beasNotes.id}/add/musing`;
  const { csrf } = await formOf(path, session, signal);
  const response = await submit(path, session, { csrf, title, note: "Written as usual." }, signal);
  return { status: response.status, ms: performance.now() - started };
}

/** While the flood is on: once it is under way, Bea signs in and saves a musing. */
async function aPersonUsesTheApp(
  underWay: Promise<void>,
  floodIsOn: () => boolean,
  deadline: AbortSignal,
) {
  await underWay;
  const title = "Written during the flood";
  const startedDuringTheFlood = floodIsOn();
  try {
    const signIn = await beaSignsIn(deadline);
    if (!signIn.session) {
      return { startedDuringTheFlood, signIn, save: null, title, error: "no session cookie" };
    }
    const save = await beaAddsAMusing(signIn.session, title, deadline);
    return { startedDuringTheFlood, signIn, save, title, error: null };
  } catch (error) {
    return { startedDuringTheFlood, signIn: null, save: null, title, error: String(error) };
  }
}

// ---------------------------------------------------------------------------------------------
// Mail from Ada

/** A message from Ada to `to`, DKIM-signed by family.test, around `body` (shared between messages). */
async function mailFromAda(to: string, subject: string, body: Buffer) {
  const head = Buffer.from(
    [
      "From: Ada <ada@family.test>",
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: <${subject.replace(/\W+/g, "-")}.${Date.now()}@family.test>`,
      `Date: ${new Date().toUTCString()}`,
      "MIME-Version: 1.0",
      `Content-Type: multipart/mixed; boundary="${FORWARD_BOUNDARY}"`,
      "",
      "",
    ].join("\r\n"),
  );
  // family.test's own key; the signer reads its keys from `signatureData` (the typings also want
  // them at the top). A simple body: the same proof, and half the time to sign 25 MB.
  const key = {
    signingDomain: "family.test",
    selector: "sel",
    canonicalization: "relaxed/simple",
    privateKey: world.dkimKeys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
  const { signatures } = await dkimSign(Readable.from([head, body]), {
    ...key,
    signatureData: [key],
  });
  return { to, subject, parts: [Buffer.from(signatures), head, body] };
}

type Mail = Awaited<ReturnType<typeof mailFromAda>>;

const FORWARD_BOUNDARY = "flood-forward";

/**
 * A forward's body, `bytes` long: a line linking to one page, and an archive
 * (application/zip, base64) that takes up the rest. The link is saved; the
 * archive, a kind no item takes, is named in the answer as skipped.
 */
function forwardWithAnArchive(bytes: number) {
  const text = [
    `--${FORWARD_BOUNDARY}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "Have a look: https://example.com/flood",
    `--${FORWARD_BOUNDARY}`,
    "Content-Type: application/zip",
    'Content-Disposition: attachment; filename="holiday.zip"',
    "Content-Transfer-Encoding: base64",
    "",
    "",
  ].join("\r\n");
  const end = `\r\n--${FORWARD_BOUNDARY}--\r\n`;
  const line = `${Buffer.alloc(57, 7).toString("base64")}\r\n`;
  const lines = Math.floor((bytes - text.length - end.length) / line.length);
  return Buffer.from(text + line.repeat(lines) + end);
}

/** The message over SMTP to the app's receiver, streamed from its parts: its reply, if any by `deadline`. */
async function sendOverSmtp(mail: Mail, deadline: AbortSignal, from: string) {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    localAddress: from,
    port: world.smtpPort,
    secure: false,
    ignoreTLS: true,
    connectionTimeout: FLOOD.deadlineMs,
    greetingTimeout: FLOOD.deadlineMs,
    socketTimeout: FLOOD.deadlineMs,
  });
  const givenUp = new Promise<never>((_, reject) => {
    const giveUp = () => reject(new Error("no reply by the deadline"));
    if (deadline.aborted) giveUp();
    deadline.addEventListener("abort", giveUp, { once: true });
  });
  try {
    const sent = transport.sendMail({
      envelope: { from: "ada@family.test", to: [mail.to] },
      raw: Readable.from(mail.parts, { objectMode: false }),
    });
    const info = await Promise.race([sent, givenUp]);
    return { subject: mail.subject, accepted: true, reply: String(info.response) };
  } catch (error) {
    const { responseCode, message } = error as { responseCode?: number; message: string };
    return { subject: mail.subject, accepted: false, reply: `${responseCode ?? "-"} ${message}` };
  } finally {
    transport.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The attacks

type Attack = Post & { label: string; signedIn: boolean };

/** Mallory's CSRF token, from a page her session loads. */
const malloryCsrf = (await formOf(`/folders/${mallorysFolder.id}/add/link`, malloryCookie)).csrf;

/** The four shapes of a 40 MB body, each with Mallory's token when she is signed in. */
function bodyShapes(signedIn: boolean): { shape: string; body: BodyShape; chunked: boolean }[] {
  const fields: Record<string, string> = signedIn ? { csrf: malloryCsrf } : {};
  return [
    { shape: "form", body: urlencodedBody(fields), chunked: false },
    { shape: "chunked form", body: urlencodedBody(fields), chunked: true },
    { shape: "multipart title", body: multipartBody(fields, { name: "title" }), chunked: false },
    {
      shape: "chunked multipart file",
      body: multipartBody({ ...fields, title: "Big" }, { name: "files", filename: "big.pdf" }),
      chunked: true,
    },
  ];
}

/**
 * The hole (read whole today): multipart posts with a valid session and a
 * valid token to the routes that read a link's or a musing's form, a huge
 * title or a huge file, four of each.
 */
function formReadWholeAttacks(): Attack[] {
  const targets = [
    `/folders/${mallorysFolder.id}/add/link`,
    `/folders/${mallorysFolder.id}/add/musing`,
    `/folders/${mallorysFolder.id}/items/${mallorysItem.id}/edit`,
  ];
  const shapes = bodyShapes(true).filter(({ shape }) => shape.includes("multipart"));
  return Array.from({ length: 4 }, (_, copy) =>
    targets.flatMap((target) =>
      shapes.map(({ shape, body }) => ({
        label: `${target} ${shape} (signed in, valid token)`,
        target,
        total: FLOOD.httpBodyBytes,
        chunked: copy % 2 === 1,
        body,
        headers: { Cookie: malloryCookie },
        signedIn: true,
      })),
    ),
  ).flat();
}

/** Every route of the build with an action (read once, as the server's build has them). */
const routes = routesWithActions({
  APP_URL: base,
  SESSION_SECRET,
  DATABASE_PATH: `${tempDir()}/routes.db`,
  INBOUND_EMAIL_DOMAIN: world.DOMAIN,
  INBOUND_EMAIL_WEBHOOK_TOKEN: world.WEBHOOK_TOKEN,
});

/** Every route of the build that reads a body, each in every shape, signed out and signed in. */
function everyRouteAttacks(): Attack[] {
  const params = {
    folderId: mallorysFolder.id,
    itemId: mallorysItem.id,
    type: "link",
    relay: "postmark",
  };
  const targets = routes.map(
    (route) => concretePath(route.path, params) + (route.index ? "?index" : ""),
  );
  return targets.flatMap((target) =>
    [false, true].flatMap((signedIn) =>
      bodyShapes(signedIn).map(({ shape, body, chunked }) => ({
        label: `${target} ${shape} (${signedIn ? "signed in" : "signed out"})`,
        target,
        total: FLOOD.httpBodyBytes,
        chunked,
        body,
        headers: signedIn ? { Cookie: malloryCookie } : {},
        signedIn,
      })),
    ),
  );
}

/** 5 MB to each relay's webhook (whose limit is 1 MB), with a Content-Length or chunked. */
function relayWebhookAttacks(): Attack[] {
  const relays = ["postmark", "mailgun", "sendgrid", "ses", "inbound-email"];
  return Array.from({ length: FLOOD.webhookPosts }, (_, index) => {
    const target = `/webhooks/${relays[index % relays.length]}`;
    const chunked = index >= relays.length;
    return {
      label: `${target} 5 MB${chunked ? " chunked" : ""}`,
      target,
      total: FLOOD.webhookBodyBytes,
      chunked,
      body: {
        contentType: "application/json",
        head: Buffer.from('{"RecordType":"Bounce","ID":1,"Details":"'),
        tail: Buffer.from('"}'),
      },
      signedIn: false,
    };
  });
}

/** Runs `tasks` with at most `width` at a time, in order; their results in the same order. */
async function atMost<T>(width: number, tasks: (() => Promise<T>)[]) {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results;
}

/** An attack's answer is a refusal the app may give: it took nothing. */
function isRefusal(attack: Attack, answer: PostAnswer) {
  // 415: a file the upload pipeline does not take (the share target reads photos and files).
  if ([400, 401, 403, 404, 413, 415].includes(answer.status)) return true;
  if (answer.status === 429 || answer.status === 503) return Boolean(answer.headers["retry-after"]);
  const location = String(answer.headers.location ?? "");
  return !attack.signedIn && [302, 303].includes(answer.status) && location.startsWith("/login");
}

// ---------------------------------------------------------------------------------------------
// The save-by-email webhook's mail

type WebhookPost = { subject: string; post: Post };

/** A body of exactly these bytes. */
function exactly(contentType: string, bytes: Buffer): Pick<Post, "body" | "total"> {
  return { body: { contentType, head: bytes }, total: bytes.byteLength };
}

/** 5 MB posts of real mail from Ada to Holiday's address: Postmark's JSON, Mailgun's form, the bare message. */
async function webhookMail(): Promise<WebhookPost[]> {
  const auth = `Basic ${Buffer.from(`provider:${world.WEBHOOK_TOKEN}`).toString("base64")}`;
  // JSON spells each line's CRLF in four bytes: a slightly smaller message makes a 5 MB post.
  const body = forwardWithAnArchive(FLOOD.webhookBodyBytes - 128 * 1024);
  const posts: WebhookPost[] = [];
  for (let index = 0; index < FLOOD.webhookPosts; index++) {
    const subject = `Webhook mail ${index + 1}`;
    const mail = await mailFromAda(holidayAddress, subject, body);
    const raw = Buffer.concat(mail.parts);
    const postmark = () => ({
      target: "/webhooks/save-by-email",
      ...exactly(
        "application/json",
        Buffer.from(
          JSON.stringify({ RawEmail: raw.toString("latin1"), OriginalRecipient: mail.to }),
        ),
      ),
    });
    const mailgun = () => {
      const form = multipartBody(
        { recipient: mail.to, "body-mime": raw.toString("latin1") },
        { name: "stripped-text" },
      );
      const bytes = Buffer.concat([form.head!, form.tail!]);
      return {
        target: "/webhooks/save-by-email/mime",
        chunked: true,
        ...exactly(form.contentType, bytes),
      };
    };
    const bare = () => ({ target: "/webhooks/save-by-email", ...exactly("message/rfc822", raw) });
    const post: Post = [postmark, mailgun, bare][index % 3]!();
    posts.push({ subject, post: { ...post, headers: { Authorization: auth } } });
  }
  return posts;
}

// ---------------------------------------------------------------------------------------------
// Watching the server

/**
 * Fly's check of /healthz every `everyMs`, from a process of its own
 * (tests/support/healthz-checker.ts), each on a new connection, waiting as
 * long as Fly waits for its next check; no answer by then counts as never.
 */
function pollHealthz(everyMs: number) {
  const checker = fork(
    "tests/support/healthz-checker.ts",
    [`${base}/healthz`, String(everyMs), String(BOUNDS.healthzIntervalMs)],
    { execArgv: ["--import", "tsx"], env: { ...process.env, NODE_OPTIONS: "" } },
  );
  return {
    async stop() {
      const times = new Promise<(number | null)[]>((resolve, reject) => {
        checker.once("message", (message) => resolve(message as (number | null)[]));
        checker.once("exit", () => reject(new Error("The health checker ended without its times")));
      });
      checker.send("stop");
      const sorted = (await times)
        .map((ms) => ms ?? Number.POSITIVE_INFINITY)
        .sort((a, b) => a - b);
      const at = (share: number) =>
        sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
      return {
        polls: sorted.length,
        failed: sorted.filter((ms) => ms === Number.POSITIVE_INFINITY).length,
        withinTimeout: sorted.filter((ms) => ms <= BOUNDS.healthzCheckTimeoutMs).length,
        p50: at(0.5),
        p95: at(0.95),
        p99: at(0.99),
      };
    },
  };
}

/** How the server process ended, or null while it runs; with the end of its stderr. */
function howTheServerEnded() {
  const { exitCode, signalCode } = server.child;
  if (exitCode === null && signalCode === null) return null;
  return { code: exitCode, signal: signalCode, stderr: server.stderr().slice(-800) };
}

// ---------------------------------------------------------------------------------------------
// Before and after

const itemsOf = (folderId: number) =>
  db
    .select()
    .from(schema.contentItems)
    .where(drizzle.eq(schema.contentItems.folderId, folderId))
    .all();

/** What is saved before the flood: Ada's forward by SMTP, and a musing Bea saves through the form. */
async function saveThingsBeforeTheFlood() {
  await world.smtpSend(world.recipe(world.address));
  const beaSession = await signedInSessionCookie(db, bea.id, SESSION_SECRET);
  const saved = await beaAddsAMusing(beaSession, "Written before the flood");
  if (saved.status !== 302) throw new Error(`Bea's musing before the flood: ${saved.status}`);
  const items = [...itemsOf(familyNews.id), ...itemsOf(beasNotes.id)];
  expect(items.map((item) => item.title).sort()).toEqual([
    "Lentil soup",
    "Lentil soup (2)",
    "Written before the flood",
  ]);
  return { items, files: world.storedFiles() };
}

// ---------------------------------------------------------------------------------------------
// The flood

/** Everything the flood sends, made before it starts (DKIM-signing 25 MB takes a moment). */
async function prepareTheFlood() {
  const smtpBody = forwardWithAnArchive(FLOOD.smtpMessageBytes - 2 * 1024);
  return {
    attacks: [...formReadWholeAttacks(), ...everyRouteAttacks()],
    relayAttacks: relayWebhookAttacks(),
    webhookPosts: await webhookMail(),
    smtpMail: await Promise.all(
      Array.from({ length: FLOOD.smtpSessions }, (_, index) =>
        mailFromAda(world.address, `Flood mail ${index + 1}`, smtpBody),
      ),
    ),
  };
}

/**
 * Every door at once: the HTTP attackers (FLOOD.httpAttackers bodies in
 * flight), the SMTP sessions, the webhook posts, and Bea once the flood is
 * under way; the server's memory and /healthz watched all along.
 */
async function floodEveryDoor() {
  const preparing = performance.now();
  const { attacks, relayAttacks, webhookPosts, smtpMail } = await prepareTheFlood();
  const preparedSeconds = (performance.now() - preparing) / 1000;

  const started = performance.now();
  const sinceStart = () => (performance.now() - started) / 1000;
  const deadline = AbortSignal.timeout(FLOOD.deadlineMs);
  // Every request in flight listens to it.
  setMaxListeners(FLOOD.httpAttackers * 4, deadline);
  let diedAfterSeconds: number | null = null;
  void server.exited.then(() => {
    diedAfterSeconds = sinceStart();
  });
  const rss = sampleRss(server.child.pid!, SAMPLE_EVERY_MS);
  const healthz = pollHealthz(SAMPLE_EVERY_MS);
  // The attackers' own work yields to the server's and the checker's, started before at the
  // normal priority: on Fly the attackers use other machines' CPUs, not the server's
  // (docs/decisions/0202-the-flood-measured-as-fly-sees-it.md).
  os.setPriority(19);
  let sentBytes = 0;
  let httpOver = false;
  let smtpOver = false;
  const onSent = (bytes: number) => {
    sentBytes += bytes;
  };
  const underWay = waitUntil(
    () => httpOver || sentBytes >= FLOOD.personStartsAfterBytes,
    FLOOD.deadlineMs,
    "The flood under way",
  ).catch(() => undefined);

  const http = atMost(
    FLOOD.httpAttackers,
    attacks.map(
      (attack, index) => () =>
        postLargeBody(base, { ...attack, onSent, signal: deadline, from: ADDRESSES.bot(index) }),
    ),
  ).finally(() => {
    httpOver = true;
  });
  const relays = Promise.all(
    relayAttacks.map((attack, index) =>
      postLargeBody(base, { ...attack, signal: deadline, from: ADDRESSES.mailBot(100 + index) }),
    ),
  );
  const webhooks = Promise.all(
    webhookPosts.map(({ post }, index) =>
      postLargeBody(base, { ...post, signal: deadline, from: ADDRESSES.mailBot(150 + index) }),
    ),
  );
  const smtp = Promise.all(
    smtpMail.map((mail, index) => sendOverSmtp(mail, deadline, ADDRESSES.mailBot(index))),
  ).finally(() => {
    smtpOver = true;
  });
  const person = aPersonUsesTheApp(underWay, () => !httpOver || !smtpOver, deadline);

  const [httpAnswers, relayAnswers, webhookAnswers, smtpReplies, personResult] = await Promise.all([
    http,
    relays,
    webhooks,
    smtp,
    person,
  ]);
  const seconds = sinceStart();
  const memory = rss.stop();
  const health = await healthz.stop();

  const result = {
    preparedSeconds,
    seconds,
    sentMB: Math.round(sentBytes / MB),
    rssPeak: memory.peak,
    rssSamples: memory.samples,
    health,
    ended: howTheServerEnded(),
    diedAfterSeconds: diedAfterSeconds as number | null,
    attackAnswers: [
      ...attacks.map((attack, index) => ({ attack, answer: httpAnswers[index]! })),
      ...relayAttacks.map((attack, index) => ({ attack, answer: relayAnswers[index]! })),
    ],
    webhookAnswers: webhookPosts.map(({ subject }, index) => ({
      subject,
      answer: webhookAnswers[index]!,
    })),
    smtpReplies,
    person: personResult,
  };
  return result;
}

type Flood = Awaited<ReturnType<typeof floodEveryDoor>>;

/** The figures, for the log: what was sent, how the server held up, what it answered. */
function floodReport(flood: Flood) {
  const mb = (bytes: number) => Math.round(bytes / MB);
  const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : "none");
  const everyFiveSeconds: number[] = [];
  for (const [at, bytes] of flood.rssSamples) {
    const slot = Math.floor(at / 5_000);
    everyFiveSeconds[slot] = Math.max(everyFiveSeconds[slot] ?? 0, mb(bytes));
  }
  const { health, ended } = flood;
  return [
    `[flood] prepared in ${flood.preparedSeconds.toFixed(1)} s, flooded for ${flood.seconds.toFixed(1)} s: ` +
      `${flood.attackAnswers.length} HTTP attacks (${flood.sentMB} MB sent), ` +
      `${flood.smtpReplies.length} SMTP sessions, ${flood.webhookAnswers.length} webhook posts`,
    `[flood] RSS peak ${mb(flood.rssPeak)} MB; the highest of each 5 s: ${Array.from(everyFiveSeconds, (value) => value ?? "-").join(", ")} MB`,
    `[flood] /healthz: ${health.polls} polls, ${health.polls - health.withinTimeout} past 5 s, ${health.failed} unanswered within 15 s, ` +
      `p50 ${ms(health.p50)}, p95 ${ms(health.p95)}, p99 ${ms(health.p99)}`,
    ended
      ? `[flood] the server died ${flood.diedAfterSeconds?.toFixed(1)} s in (${ended.code ?? ended.signal}):\n${ended.stderr}`
      : "[flood] the server is alive",
    `[flood] HTTP answers ${JSON.stringify(countBy(flood.attackAnswers.map(({ answer }) => answer.status || answer.error || 0)))}`,
    `[flood] SMTP replies ${JSON.stringify(countBy(flood.smtpReplies.map((reply) => reply.reply.slice(0, 40))))}`,
    `[flood] webhook answers ${JSON.stringify(countBy(flood.webhookAnswers.map(({ answer }) => `${answer.status || answer.error} ${answer.text.slice(0, 40)}`)))}`,
    `[flood] Bea: ${JSON.stringify(flood.person)}`,
  ].join("\n");
}

function countBy(values: (string | number)[]) {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/**
 * Each yes (a 2xx webhook answer, an SMTP 250) should be an item: the
 * subjects that are not, once given time to be saved.
 */
async function yesesNotKept(flood: Flood) {
  const promised = [
    ...flood.webhookAnswers
      .filter(({ answer }) => answer.status >= 200 && answer.status < 300)
      .map(({ subject }) => ({ subject, folderId: holiday.id })),
    ...flood.smtpReplies
      .filter((reply) => reply.accepted)
      .map(({ subject }) => ({ subject, folderId: familyNews.id })),
  ];
  const missing = () =>
    promised.filter(
      ({ subject, folderId }) => !itemsOf(folderId).some((item) => item.title === subject),
    );
  await waitUntil(() => missing().length === 0, 30_000, "The accepted mail saved").catch(
    () => undefined,
  );
  return missing().map(({ subject }) => subject);
}

// ---------------------------------------------------------------------------------------------
// What must hold

describe("a flood at every door at once", () => {
  let before: Awaited<ReturnType<typeof saveThingsBeforeTheFlood>>;
  let flood: Flood;
  let yesesLost: string[];

  beforeAll(async () => {
    before = await saveThingsBeforeTheFlood();
    // Two seconds of checks on the idle server: the figures the flood's are read against.
    const idleChecks = pollHealthz(SAMPLE_EVERY_MS);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = await idleChecks.stop();
    flood = await floodEveryDoor();
    console.info(floodReport(flood));
    console.info(
      `[flood] /healthz idle: ${idle.polls} polls, p50 ${idle.p50.toFixed(0)} ms, p99 ${idle.p99.toFixed(0)} ms`,
    );
    yesesLost = await yesesNotKept(flood);
  }, FLOOD.deadlineMs + 120_000);

  test("the server process survives it", () => {
    expect(flood.ended).toBeNull();
  });

  test("its resident memory stays under 400 MB", () => {
    expect(Math.round(flood.rssPeak / MB)).toBeLessThan(BOUNDS.rssBytes / MB);
  });

  test("/healthz answers every check within Fly's 5 s", () => {
    // The p99 (under 1 s on a quiet machine: docs/memory-budget.md) is printed beside the idle
    // one; a busy machine stretches it, while a check past 5 s would fail the deploy on Fly.
    expect(flood.health.polls).toBeGreaterThan(10);
    expect(flood.health.failed).toBe(0);
    expect(flood.health.withinTimeout).toBe(flood.health.polls);
  });

  test("a person signs in through the real form and saves a musing", () => {
    expect(flood.person.startedDuringTheFlood).toBe(true);
    expect(flood.person.error).toBeNull();
    expect(flood.person.signIn?.status).toBe(302);
    expect(flood.person.save?.status).toBe(302);
    expect(itemsOf(beasNotes.id).map((item) => item.title)).toContain(flood.person.title);
  });

  test("every attack is refused, none is taken", () => {
    const taken = flood.attackAnswers
      .filter(({ attack, answer }) => !isRefusal(attack, answer))
      .map(({ attack, answer }) => `${attack.label}: ${answer.status || answer.error}`);
    expect(taken).toEqual([]);
  });

  test("each SMTP session is answered: accepted, or refused with a 4xx or 5xx", () => {
    const unanswered = flood.smtpReplies.filter(
      (reply) => !reply.accepted && !/^[45]\d\d /.test(reply.reply),
    );
    expect(unanswered).toEqual([]);
  });

  test("each webhook post of real mail is saved, or refused to be sent again later", () => {
    const odd = flood.webhookAnswers.filter(
      ({ answer }) => !(answer.status >= 200 && answer.status < 300) && !isRefusalOfMail(answer),
    );
    expect(
      odd.map(({ subject, answer }) => `${subject}: ${answer.status || answer.error}`),
    ).toEqual([]);
  });

  test("what the server said yes to is saved", () => {
    expect(yesesLost).toEqual([]);
  });

  test("nothing saved before the flood is lost", () => {
    const byId = (items: typeof before.items) => [...items].sort((a, b) => a.id - b.id);
    const now = db
      .select()
      .from(schema.contentItems)
      .where(
        drizzle.inArray(
          schema.contentItems.id,
          before.items.map((item) => item.id),
        ),
      )
      .all();
    expect(byId(now)).toEqual(byId(before.items));
    expect(world.storedFiles()).toEqual(expect.arrayContaining(before.files));
  });
});

/**
 * Real mail under the size limit refused so that the provider sends it
 * again later; a 413 (or any other 4xx) would have the provider drop it.
 */
function isRefusalOfMail(answer: PostAnswer) {
  return [429, 503].includes(answer.status) && Boolean(answer.headers["retry-after"]);
}

// ---------------------------------------------------------------------------------------------
// The greedy client and Bea (issue 59)

/** Bea uploads a photo through the API, from her address. */
async function beaUploadsAPhoto(title: string) {
  const boundary = "bea-photo";
  const part = (headers: string, content: Buffer | string) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`),
      Buffer.from(content),
      Buffer.from("\r\n"),
    ]);
  const body = Buffer.concat([
    part('Content-Disposition: form-data; name="title"', title),
    part('Content-Disposition: form-data; name="addComment"', "on"),
    part('Content-Disposition: form-data; name="commentText"', "From my phone"),
    part(
      'Content-Disposition: form-data; name="files"; filename="soup.jpg"\r\nContent-Type: image/jpeg',
      world.photo,
    ),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  const response = await requestFrom(
    ADDRESSES.bea,
    `${base}/api/v1/folders/${beasNotes.id}/upload?type=photo`,
    {
      method: "POST",
      headers: {
        Authorization: `Bearer ${beasToken}`,
        "Content-Type": `multipart/form-data; boundary=${boundary}`,
      },
      body,
      signal: AbortSignal.timeout(30_000),
    },
  );
  return { status: response.status, ms: response.ms };
}

/** Bea's e-mail to a folder's address (Ada's forward), from her address. */
async function beaMailsAFolder(subject: string) {
  const started = performance.now();
  const mail = await mailFromAda(world.address, subject, forwardWithAnArchive(8 * 1024));
  const reply = await sendOverSmtp(mail, AbortSignal.timeout(30_000), ADDRESSES.bea);
  return { ...reply, ms: performance.now() - started };
}

/** Each of Bea's doors once: sign in, save a musing, upload a photo, mail a folder. */
async function beaUsesEveryDoor(label: string) {
  const signIn = await beaSignsIn(AbortSignal.timeout(30_000));
  const save = await beaAddsAMusing(signIn.session ?? "", `${label}: a musing`);
  const upload = await beaUploadsAPhoto(`${label}: a photo`);
  const mail = await beaMailsAFolder(`${label}: a forward`);
  return { signIn, save, upload, mail };
}

type BeasDoors = Awaited<ReturnType<typeof beaUsesEveryDoor>>;

/** While one address holds all it can, Bea uses every door from hers; her idle figures first. */
async function greedyClientBesideBea() {
  const idle = await beaUsesEveryDoor("Idle");
  const rss = sampleRss(server.child.pid!, SAMPLE_EVERY_MS);
  const healthz = pollHealthz(SAMPLE_EVERY_MS);
  const bodies = holdSlowBodies({
    base,
    from: ADDRESSES.greedy,
    count: GREEDY.slowBodies,
    path: "/login",
    declaredBytes: 64 * 1024,
  });
  const sessions = holdSmtpSessions({
    port: world.smtpPort,
    from: ADDRESSES.greedy,
    count: GREEDY.smtpSessions,
    everyMs: GREEDY.noopEveryMs,
  });
  try {
    await waitUntil(
      () => bodies.settled() === GREEDY.slowBodies && sessions.settled() === GREEDY.smtpSessions,
      30_000,
      "the greedy client's bodies sent and its sessions greeted",
    );
    // Those past the share are refused at once, but a busy machine answers them in turn.
    await waitUntil(
      () =>
        bodies.holding() <= MAX_UNFINISHED_BODIES_PER_CLIENT &&
        sessions.open() <= SMTP_SESSION_LIMITS.sessionsPerClient,
      20_000,
      "the greedy client's bodies and sessions past its share refused",
    ).catch(() => undefined);
    const held = { bodies: bodies.holding(), smtpSessions: sessions.open() };
    const underGreed = await beaUsesEveryDoor("Beside the greedy client");
    return {
      idle,
      underGreed,
      held,
      rssPeak: rss.stop().peak,
      health: await healthz.stop(),
      ended: howTheServerEnded(),
    };
  } finally {
    bodies.close();
    sessions.close();
  }
}

/** Each of Bea's steps, named, with its time and whether it was done. */
function stepsOf(doors: BeasDoors) {
  return {
    "sign in": {
      done: doors.signIn.status === 302 && Boolean(doors.signIn.session),
      ms: doors.signIn.ms,
    },
    "save a musing": { done: doors.save.status === 302, ms: doors.save.ms },
    "upload a photo through the API": { done: doors.upload.status === 201, ms: doors.upload.ms },
    "mail a folder's address": { done: doors.mail.accepted, ms: doors.mail.ms },
  };
}

describe("one greedy address beside a fair one", () => {
  let run: Awaited<ReturnType<typeof greedyClientBesideBea>>;

  beforeAll(async () => {
    run = await greedyClientBesideBea();
    const steps = (doors: BeasDoors) =>
      Object.entries(stepsOf(doors))
        .map(([step, { done, ms }]) => `${step} ${done ? "" : "NOT DONE "}${ms.toFixed(0)} ms`)
        .join(", ");
    console.info(
      [
        `[greedy] held ${run.held.bodies} of ${GREEDY.slowBodies} slow bodies and ${run.held.smtpSessions} of ${GREEDY.smtpSessions} SMTP sessions; RSS peak ${Math.round(run.rssPeak / MB)} MB`,
        `[greedy] Bea idle: ${steps(run.idle)}`,
        `[greedy] Bea beside the greedy client: ${steps(run.underGreed)}`,
        `[greedy] /healthz: ${run.health.polls} polls, p50 ${run.health.p50.toFixed(0)} ms, p99 ${run.health.p99.toFixed(0)} ms`,
      ].join("\n"),
    );
  }, 180_000);

  test("the greedy address holds only its share: a few bodies and sessions, the rest refused", () => {
    expect(run.held.bodies).toBeLessThanOrEqual(MAX_UNFINISHED_BODIES_PER_CLIENT);
    expect(run.held.smtpSessions).toBeLessThanOrEqual(SMTP_SESSION_LIMITS.sessionsPerClient);
  });

  test("Bea signs in, saves, uploads and mails a folder from her address, as quickly as on the idle server", () => {
    const idle = stepsOf(run.idle);
    const underGreed = stepsOf(run.underGreed);
    expect(Object.values(idle).every((step) => step.done)).toBe(true);
    const slowOrRefused = Object.entries(underGreed)
      .filter(([step, { done, ms }]) => {
        const idleMs = idle[step as keyof typeof idle].ms;
        return !done || ms > Math.max(FAIR.withinMs, FAIR.idleFactor * idleMs);
      })
      .map(([step, { done, ms }]) => `${step}: ${done ? `${ms.toFixed(0)} ms` : "refused"}`);
    expect(slowOrRefused).toEqual([]);
  });

  test("the server lives within its memory and answers every health check in time", () => {
    expect(run.ended).toBeNull();
    expect(Math.round(run.rssPeak / MB)).toBeLessThan(BOUNDS.rssBytes / MB);
    expect(run.health.failed).toBe(0);
    expect(run.health.withinTimeout).toBe(run.health.polls);
  });
});
