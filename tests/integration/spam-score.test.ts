import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import sharp from "sharp";
import { beforeAll, expect, test } from "vitest";
import { createFolder, createUser } from "#db/factories";

/**
 * An offline spam check of a real newsletter, exactly as the mailer writes it
 * (the outbox holds the bytes that would go over SMTP), through Debian's
 * SpamAssassin with local rules only (-L: no network tests).
 */
const MAX_SCORE = 1.0;

let app: Awaited<ReturnType<typeof loadApp>>;
async function loadApp() {
  const [{ db }, schema, { storage }, { env }, { sendNow }, branding] = await Promise.all([
    import("~/platform/db.server"),
    import("#db/schema"),
    import("~/platform/storage.server"),
    import("~/platform/env.server"),
    import("~/modules/sending/sending.server"),
    import("~/modules/sending/branding.server"),
  ]);
  return { db, ...schema, storage, env, sendNow, branding };
}

beforeAll(async () => {
  // Links in a real message point at the public https address, not localhost:3000.
  process.env.APP_URL = "https://thoughtfully.example";
  process.env.MAIL_FROM = "Thoughtfully <hello@thoughtfully.example>";
  app = await loadApp();
});

type Look = { template: "classic" | "letter" | "postcard"; accentColor: string };

/** Sends a typical newsletter (with `look`, from a Premium sender) and returns SpamAssassin's verdict. */
async function newsletterScore(look: Look | null) {
  const check = spawnSync("spamassassin", ["--version"], { encoding: "utf8" });
  expect(check.error, "spamassassin is not installed: scripts/ensure-system-packages.sh").toBe(
    undefined,
  );

  const { db, contentItems, storage, branding } = app;
  const user = createUser(db, {
    email: `ada-${look?.template ?? "free"}@example.org`,
    firstName: "Ada",
    lastName: "Lovelace",
    emailVerified: true,
    ...(look ? { subscriptionTier: "premium", subscriptionStatus: "active" } : {}),
  });
  if (look) {
    branding.saveLook(user, look);
    await branding.saveHeaderImage(
      user,
      await sharp({ create: { width: 1200, height: 300, channels: 3, background: "#d9c7a3" } })
        .jpeg()
        .toBuffer(),
    );
  }
  const folder = createFolder(db, user.id, {
    name: "Family",
    recipients: [{ name: "Grace", email: "grace@example.net" }],
    personalSignoff: "Love, Ada",
  });
  const photo = await sharp({
    create: { width: 800, height: 600, channels: 3, background: "#7a9e7e" },
  })
    .jpeg()
    .toBuffer();
  const { key } = await storage.put(
    (async function* () {
      yield photo;
    })(),
  );
  db.insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "link",
        title: "The garden article I mentioned",
        urls: ["https://www.example.org/gardens/spring-planting"],
        addComment: true,
        commentText: "This reminded me of the roses at your old house. What would you plant?",
        responseExpectation: "expecting",
        sortOrder: 0,
      },
      {
        folderId: folder.id,
        type: "musing",
        title: "A quiet Sunday",
        note: "We walked by the river this morning and talked about the summer trip.",
        sortOrder: 1,
      },
      {
        folderId: folder.id,
        type: "photo",
        title: "The view from the bridge",
        filePaths: [key],
        thumbnailPaths: [""],
        fileNames: ["bridge.jpg"],
        fileSizes: [photo.length],
        mimeTypes: ["image/jpeg"],
        addComment: true,
        commentText: "Taken just before the rain.",
        sortOrder: 2,
      },
    ])
    .run();

  const message = await sendNowMessage(user.id, folder.id);
  expect(await answerLinks(message)).toEqual({ html: 3, text: 3 });
  return spamScore(message, look?.template ?? "free sender");
}

function spamScore(message: Buffer, label: string) {
  const result = spawnSync("spamassassin", ["-L", "-t"], { input: message, encoding: "utf8" });
  const status =
    /^X-Spam-Status: .*?score=(-?[\d.]+).*?tests=([\s\S]*?)(?:autolearn|version)/m.exec(
      result.stdout,
    );
  expect(status, result.stdout + result.stderr).not.toBeNull();
  const score = Number(status![1]);
  const rules = status![2]!.replace(/\s+/g, " ").trim();
  console.info(`SpamAssassin score ${score} (${label}): ${rules}`);
  return { score, rules };
}

/** The message's answer links (one per item, docs/decisions/0162-answer-links-in-the-newsletter.md), HTML and text. */
async function answerLinks(message: Buffer) {
  const { html, text } = await simpleParser(message);
  const count = (body: string) =>
    body.match(/https:\/\/thoughtfully\.example\/a\/[0-9a-z]/g)?.length ?? 0;
  return { html: count(String(html)), text: count(text ?? "") };
}

/** The one message a Send Now of this folder put in the outbox. */
async function sendNowMessage(userId: number, folderId: number) {
  const { env, sendNow } = app;
  const before = new Set(fs.existsSync(env.OUTBOX_DIR) ? fs.readdirSync(env.OUTBOX_DIR) : []);
  await sendNow(userId, folderId);
  const [eml] = fs
    .readdirSync(env.OUTBOX_DIR)
    .filter((name) => name.endsWith(".eml") && !before.has(name));
  expect(eml).toBeDefined();
  return fs.readFileSync(path.join(env.OUTBOX_DIR, eml!));
}

function expectLowScore({ score, rules }: { score: number; rules: string }) {
  expect(score, `SpamAssassin score ${score}; rules that fired: ${rules}`).toBeLessThanOrEqual(
    MAX_SCORE,
  );
}

test("a newsletter scores at most 1.0 with SpamAssassin", async () => {
  expectLowScore(await newsletterScore(null));
}, 60_000);

test("a newsletter of 50 items of every kind, each with its answer link, scores at most 1.0", async () => {
  const { db, contentItems, storage } = app;
  const user = createUser(db, {
    email: "ada-fifty@example.org",
    firstName: "Ada",
    lastName: "Lovelace",
    emailVerified: true,
  });
  const folder = createFolder(db, user.id, {
    name: "Family",
    recipients: [{ name: "Grace", email: "grace-fifty@example.net" }],
    personalSignoff: "Love, Ada",
  });
  const photo = await sharp({
    create: { width: 800, height: 600, channels: 3, background: "#7a9e7e" },
  })
    .jpeg()
    .toBuffer();
  const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
  const stored = async (bytes: Buffer) =>
    (
      await storage.put(
        (async function* () {
          yield bytes;
        })(),
      )
    ).key;
  const photoKey = await stored(photo);
  const pdfKey = await stored(pdf);
  const topics = ["gardens", "tides", "bridges", "bread", "birds", "rivers", "letters"];
  const kinds = [
    (topic: string) => ({
      type: "link" as const,
      title: `The article about ${topic} I mentioned`,
      urls: [`https://www.example.org/${topic}/a-long-read`],
      addComment: true,
      commentText: `This reminded me of our talk about ${topic}. What do you think?`,
      responseExpectation: "expecting" as const,
    }),
    (topic: string) => ({
      type: "musing" as const,
      title: `Thinking about ${topic}`,
      note: `We talked about ${topic} on our walk by the river this morning.`,
    }),
    (topic: string) => ({
      type: "photo" as const,
      title: `A picture of the ${topic}`,
      filePaths: [photoKey],
      thumbnailPaths: [""],
      fileNames: [`${topic}.jpg`],
      fileSizes: [photo.length],
      mimeTypes: ["image/jpeg"],
      addComment: true,
      commentText: "Taken just before the rain.",
    }),
    (topic: string) => ({
      type: "file" as const,
      title: `Notes on ${topic}`,
      filePaths: [pdfKey],
      thumbnailPaths: [""],
      fileNames: [`${topic}.pdf`],
      fileSizes: [pdf.length],
      mimeTypes: ["application/pdf"],
      askQuestion: true,
      questionText: `Shall we read more about ${topic} together?`,
    }),
  ];
  db.insert(contentItems)
    .values(
      Array.from({ length: 50 }, (_, index) => ({
        folderId: folder.id,
        sortOrder: index,
        ...kinds[index % kinds.length]!(topics[index % topics.length]!),
      })),
    )
    .run();
  const message = await sendNowMessage(user.id, folder.id);
  expect(await answerLinks(message)).toEqual({ html: 50, text: 50 });
  expectLowScore(spamScore(message, "50 items with answer links"));
}, 60_000);

test("a newsletter of five link preview cards scores at most 1.0", async () => {
  const { db, contentItems, storage } = app;
  const user = createUser(db, {
    email: "grace@example.org",
    firstName: "Grace",
    emailVerified: true,
  });
  const folder = createFolder(db, user.id, {
    name: "Reading",
    recipients: [{ name: "Ada", email: "ada@example.net" }],
  });
  const topics = ["gardens", "tides", "bridges", "bread", "birds"];
  for (const [index, topic] of topics.entries()) {
    const picture = await sharp({
      create: { width: 600, height: 315, channels: 3, background: "#5b7f6a" },
    })
      .jpeg()
      .toBuffer();
    const { key, size } = await storage.put(
      (async function* () {
        yield picture;
      })(),
    );
    const url = `https://www.example.org/${topic}/a-long-read`;
    db.insert(contentItems)
      .values({
        folderId: folder.id,
        type: "link",
        title: `The piece about ${topic}`,
        urls: [url],
        addComment: true,
        commentText: `What do you think of ${topic}?`,
        sortOrder: index,
        previewStatus: "ready",
        previewUrl: url,
        previewTitle: `A long read about ${topic}`,
        previewDescription: `What we learned this year about ${topic}, and why it matters at home.`,
        previewSiteName: "Example Review",
        previewImageKey: key,
        previewImageSize: size,
      })
      .run();
  }
  const message = await sendNowMessage(user.id, folder.id);
  expect(message.toString()).toContain("cid:preview-");
  expect(await answerLinks(message)).toEqual({ html: 5, text: 5 });
  expectLowScore(spamScore(message, "five link cards"));
}, 60_000);

test.each([
  { template: "classic", accentColor: "#7c2d12" },
  { template: "letter", accentColor: "#1e3a8a" },
  { template: "postcard", accentColor: "#30503b" },
] satisfies Look[])(
  "the $template template with branding scores at most 1.0 too",
  async (look) => {
    expectLowScore(await newsletterScore(look));
  },
  60_000,
);

test("the day-before reminder of items waiting for a note scores at most 1.0", async () => {
  const { db, contentItems, env } = app;
  const { remindWaitingItems } = await import("~/modules/sending/waiting-reminders.server");
  const { zonedTimeToUtc } = await import("~/modules/folders/schedule.server");
  const user = createUser(db, {
    email: "ada-reminder@example.org",
    firstName: "Ada",
    lastName: "Lovelace",
    emailVerified: true,
    timeZone: "Europe/London",
  });
  const folder = createFolder(db, user.id, {
    name: "Family",
    recipients: [{ name: "Grace", email: "grace-reminder@example.net" }],
    nextSendAt: zonedTimeToUtc(2026, 12, 7, 0, 1, "Europe/London"),
  });
  db.insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "link",
        title: "Bread for Sunday",
        urls: ["https://www.example.org/bread/a-long-read"],
        sortOrder: 0,
      },
      {
        folderId: folder.id,
        type: "link",
        title: "The garden article I mentioned",
        urls: ["https://www.example.org/gardens/spring-planting"],
        addComment: true,
        commentText: "This reminded me of the roses at your old house.",
        sortOrder: 1,
      },
    ])
    .run();
  const before = new Set(fs.existsSync(env.OUTBOX_DIR) ? fs.readdirSync(env.OUTBOX_DIR) : []);
  expect((await remindWaitingItems(new Date("2026-12-06T09:30:00Z"))).messages).toBe(1);
  const [eml] = fs
    .readdirSync(env.OUTBOX_DIR)
    .filter((name) => name.endsWith(".eml") && !before.has(name));
  const message = fs.readFileSync(path.join(env.OUTBOX_DIR, eml!));
  expect(message.toString()).toContain("wait");
  expectLowScore(spamScore(message, "waiting items reminder"));
}, 60_000);

test("the welcome to a new recipient scores at most 1.0", async () => {
  const { db, env } = app;
  const folders = await import("~/modules/folders/folders.server");
  const { FolderSchema } = await import("~/modules/folders/folder-validation");
  const { sendWelcomes } = await import("~/modules/sending/welcomes.server");
  const user = createUser(db, {
    email: "ada-welcome@example.org",
    firstName: "Ada",
    lastName: "Lovelace",
    emailVerified: true,
    timeZone: "Europe/London",
  });
  const before = new Set(fs.existsSync(env.OUTBOX_DIR) ? fs.readdirSync(env.OUTBOX_DIR) : []);
  folders.createFolder(
    user.id,
    FolderSchema.parse({
      name: "Family news",
      recipients: [{ name: "Grace", email: "grace-welcome@example.net" }],
      frequency: "weekly",
      dayOfWeek: 1,
    }),
  );
  expect(await sendWelcomes()).toBe(1);
  const [eml] = fs
    .readdirSync(env.OUTBOX_DIR)
    .filter((name) => name.endsWith(".eml") && !before.has(name));
  const message = fs.readFileSync(path.join(env.OUTBOX_DIR, eml!));
  expect(message.toString()).toContain("Sounds lovely");
  expectLowScore(spamScore(message, "welcome"));
}, 60_000);

test("the one question after a bounce scores at most 1.0", async () => {
  const { db, env } = app;
  const optOuts = await import("~/modules/recipients/opt-outs.server");
  const recipients = await import("~/modules/recipients/recipients.server");
  const user = createUser(db, {
    email: "ada-bounce@example.org",
    firstName: "Ada",
    lastName: "Lovelace",
    emailVerified: true,
  });
  const folder = createFolder(db, user.id, {
    name: "Family news",
    recipients: [{ name: "Grace", email: "grace-bounce@example.net" }],
  });
  optOuts.markBounced(folder.id, "grace-bounce@example.net", "552 mailbox full");
  const before = new Set(fs.existsSync(env.OUTBOX_DIR) ? fs.readdirSync(env.OUTBOX_DIR) : []);
  await recipients.requestResubscription(user.id, folder.id, "grace-bounce@example.net", "bounce");
  const [eml] = fs
    .readdirSync(env.OUTBOX_DIR)
    .filter((name) => name.endsWith(".eml") && !before.has(name));
  const message = fs.readFileSync(path.join(env.OUTBOX_DIR, eml!));
  expect(message.toString()).toContain("Keep getting it");
  expectLowScore(spamScore(message, "keep getting it"));
}, 60_000);
