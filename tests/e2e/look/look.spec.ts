import crypto from "node:crypto";
import type { Page } from "@playwright/test";
import { createFolder, createItem, createUser } from "#db/factories";
import { userRoles } from "#db/schema";
import { createSentIssue } from "#db/sent-issue-factories";
import { cheapPasswordHash } from "#tests/support/cheap-password-hash";
import { expect, test } from "../fixtures";
import {
  enableTwoFactor,
  signIn,
  signInWithSecondFactor,
  TEST_PASSWORD,
} from "../support/accounts";
import { hydrated } from "../support/hydrated";
import { startPrivateServer } from "../support/private-server";

/**
 * The look of the main screens, pixel by pixel: full-page screenshots at a
 * 375 px phone and a 1280 px desktop, with JavaScript and without, compared
 * with the PNGs in look.spec.ts-snapshots/ (taken on Tailwind CSS 3, before
 * the move to Tailwind CSS 4: docs/decisions/0182-tailwind-4-css-first.md).
 * A class that loses its style, a colour that shifts or a margin that moves
 * fails here.
 *
 * The same picture every run: a server of this file's own for each worker (no
 * other test's rows in the admin figures), the same rows with the same names
 * and ids, sent and next-send dates fixed, every date on the page read as one
 * date, the server's port as one port and the admin's uptime as one figure.
 * Debian's Chromium draws the text with the DejaVu fonts the system offers for
 * the app's font stacks (Georgia, system-ui); on a machine with other fonts the
 * PNGs must be taken again (`npx playwright test tests/e2e/look
 * --update-snapshots=all`) from a commit whose look is known to be right.
 *
 * Where a screen is the same without JavaScript, both projects compare with
 * one PNG (which also holds the no-JavaScript page to the enhanced one); a
 * screen that JavaScript changes on purpose has one PNG per project.
 */
const privateServer = startPrivateServer("look");

const VIEWPORTS = [
  { name: "phone", width: 375, height: 812 },
  { name: "desktop", width: 1280, height: 800 },
] as const;

const NEXT_SEND = new Date("2030-06-03T00:01:00Z");
const SENT_AT = new Date("2026-11-02T00:01:00Z");
const MUM = "mum@example.com";

/** Signed with the server's SESSION_SECRET as app/modules/recipients/recipient-links.server.ts signs. */
function sign(message: string) {
  return crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(message)
    .digest("base64url");
}

/** Ada, an admin with two folders (one paused), two items waiting and one issue sent to Mum. */
async function seed() {
  const db = privateServer.database;
  const user = createUser(db, {
    email: "ada@example.com",
    firstName: "Ada",
    lastName: "Lovelace",
    timeZone: "Europe/London",
    passwordHash: cheapPasswordHash(TEST_PASSWORD),
  });
  db.insert(userRoles).values({ userId: user.id, role: "admin", grantReason: "e2e" }).run();
  await enableTwoFactor(user.id, db);
  const folder = createFolder(db, user.id, {
    name: "Family news",
    recipients: [
      { name: "Mum", email: MUM },
      { name: "Dad", email: "dad@example.com" },
    ],
    nextSendAt: NEXT_SEND,
    sortOrder: 0,
  });
  createFolder(db, user.id, {
    name: "Book club",
    recipients: [{ name: "Grace", email: "grace@example.com" }],
    nextSendAt: NEXT_SEND,
    isPaused: true,
    sortOrder: 1,
  });
  createItem(db, folder.id, {
    type: "link",
    title: "An article about gardens",
    urls: ["https://example.com/gardens/in/winter"],
    addComment: true,
    commentText: "Made me think of you.",
    previewStatus: "ready",
    previewUrl: "https://example.com/gardens/in/winter",
    previewTitle: "Gardens in winter",
    previewSiteName: "Example Gardens",
    previewDescription: "What to plant before the frost.",
    sortOrder: 0,
  });
  createItem(db, folder.id, { title: "Tomatoes", note: "The first ones are ripe.", sortOrder: 1 });
  const { ledger, items, copies } = createSentIssue(db, folder.id, {
    titles: ["Tide tables for the bay", "Our garden"],
    emails: [MUM],
    sentAt: SENT_AT,
  });
  const copy = copies[0]!;
  const item = items[0]!;
  return {
    db,
    user,
    folderPath: `/folders/${folder.id}`,
    webVersionPath: `/v/${Buffer.from(`${ledger.id}:${MUM}`).toString("base64url")}.${sign(`issue-web:${ledger.id}:${MUM}`)}`,
    answerPath: `/a/${copy.id.toString(36)}.${item.id.toString(36)}.${sign(`answer:${copy.id}:${item.id}`).slice(0, 22)}`,
  };
}

let seeded: Awaited<ReturnType<typeof seed>>;
test.beforeAll(async () => {
  seeded = await seed();
});

type Screen = {
  name: string;
  path: () => string;
  /** Who looks: nobody (signed out), Ada, or Ada with a second factor (admin pages). */
  as?: "sender" | "admin";
  /** JavaScript changes this screen on purpose (a switch, a passkey button): a PNG per project. */
  differsWithoutJavaScript?: true;
};

const SCREENS: Screen[] = [
  { name: "home", path: () => "/" },
  { name: "login", path: () => "/login", differsWithoutJavaScript: true },
  // The folders list and the open folder: one screen.
  { name: "folder", path: () => seeded.folderPath, as: "sender" },
  // The folder form of tests/e2e/screens/layout.spec.ts (showing the weekday and the day of the month
  // without JavaScript).
  {
    name: "folder-form",
    path: () => "/folders/new",
    as: "sender",
    differsWithoutJavaScript: true,
  },
  {
    name: "add-link",
    path: () => `${seeded.folderPath}/add/link`,
    as: "sender",
    differsWithoutJavaScript: true,
  },
  { name: "profile", path: () => "/profile", as: "sender", differsWithoutJavaScript: true },
  { name: "web-version", path: () => seeded.webVersionPath },
  { name: "answer", path: () => seeded.answerPath, differsWithoutJavaScript: true },
  {
    name: "admin",
    path: () => "/admin/dashboard",
    as: "admin",
    differsWithoutJavaScript: true,
  },
];

/**
 * Every date in the app's one format reads as one date, the server's port (in the bookmarklet)
 * as one port, and the admin's uptime as one figure.
 */
async function holdStill(page: Page) {
  await page.evaluate(() => {
    const date =
      /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)( \d{4})?(, \d{2}:\d{2})?/g;
    const hold = (text: string) =>
      text
        .replace(
          date,
          (_date, year?: string, time?: string) =>
            `Mon 30 Nov${year ? " 2026" : ""}${time ? ", 00:01" : ""}`,
        )
        .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:40000");
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue ?? "";
      const held = hold(text);
      if (held !== text) node.nodeValue = held;
    }
    for (const field of document.querySelectorAll("textarea")) field.value = hold(field.value);
    for (const term of document.querySelectorAll("dt")) {
      if (term.textContent === "Uptime" && term.nextElementSibling) {
        term.nextElementSibling.textContent = "1m";
      }
    }
  });
}

for (const viewport of VIEWPORTS) {
  test.describe(`at ${viewport.width} px (${viewport.name})`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    for (const screen of SCREENS) {
      test(`${screen.name} looks as it did`, async ({ page, context }, testInfo) => {
        const { db, user } = seeded;
        const origin = privateServer.origin;
        if (screen.as === "admin") await signInWithSecondFactor(context, user.id, origin, db);
        if (screen.as === "sender") await signIn(context, user.id, origin, db);

        const response = await page.goto(`${origin}${screen.path()}`);
        expect(response?.status()).toBe(200);
        await page.waitForLoadState("networkidle");
        await hydrated(page, testInfo.project.use.javaScriptEnabled !== false);
        await holdStill(page);

        const project = screen.differsWithoutJavaScript ? `-${testInfo.project.name}` : "";
        await expect(page).toHaveScreenshot(`${screen.name}-${viewport.name}${project}.png`, {
          fullPage: true,
          // Two full-page screenshots that agree: more than the default 5 s on a busy machine.
          timeout: 15_000,
          animations: "disabled",
          caret: "hide",
          // Anti-aliasing aside, a pixel counts as changed when its colour moves at all
          // visibly (the default, 0.2, lets a shade of stone pass for another), and none may:
          // a card's corners 4 px rounder change fewer than 100 pixels of a page.
          threshold: 0.05,
          maxDiffPixels: 0,
        });
      });
    }
  });
}
