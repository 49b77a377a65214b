import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import {
  contentItems,
  emailDeliveries,
  folderRecipientStates,
  sendLedger,
  sendLedgerRecipients,
} from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb, uniqueEmail } from "../support/accounts";
import { openMoreMenu } from "../support/folder-screen";
import { writeStoredFile } from "../support/items";
import { expectPictureLoaded } from "../support/pictures";

/**
 * The sent archive (the sender's "Sent" view) and the web version (the
 * recipient's "View in your browser"), with and without JavaScript. Sent
 * issues are written straight into the database as a finished send leaves
 * them; web-version links are signed here with the server's SESSION_SECRET,
 * exactly as app/modules/recipients/recipient-links.server.ts signs them.
 */
function webVersionPath(ledgerId: number, email: string) {
  const token = crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(`issue-web:${ledgerId}:${email}`)
    .digest("base64url");
  return `/v/${Buffer.from(`${ledgerId}:${email}`).toString("base64url")}.${token}`;
}

async function sentIssue(options: { premium?: boolean } = {}) {
  const user = await createUser(
    options.premium ? { subscriptionTier: "premium", subscriptionStatus: "active" } : {},
  );
  const mum = uniqueEmail("mum");
  const dad = uniqueEmail("dad");
  const folder = createFolderRow(user.id, {
    name: "Family",
    recipients: [
      { name: "Mum", email: mum },
      { name: "Dad", email: dad },
    ],
  });
  const jpeg = await sharp({ create: { width: 30, height: 20, channels: 3, background: "#0a0" } })
    .jpeg()
    .toBuffer();
  const photoKey = writeStoredFile(jpeg);
  const sentAt = new Date();
  const items = testDb()
    .insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "link",
        title: "Tide tables for the bay",
        urls: ["https://example.com/tides"],
        sentAt,
        sortOrder: 0,
      },
      {
        folderId: folder.id,
        type: "photo",
        title: "Our garden",
        filePaths: [photoKey],
        thumbnailPaths: [""],
        fileNames: ["garden.jpg"],
        fileSizes: [jpeg.length],
        mimeTypes: ["image/jpeg"],
        sentAt,
        sortOrder: 1,
      },
    ])
    .returning()
    .all();
  const ledger = testDb()
    .insert(sendLedger)
    .values({
      folderId: folder.id,
      occurrenceKey: `send-now:${sentAt.toISOString()}`,
      trigger: "send_now",
      status: "sent",
      itemIds: items.map((item) => item.id),
      completedAt: sentAt,
      tracked: Boolean(options.premium),
    })
    .returning()
    .get();
  testDb()
    .insert(sendLedgerRecipients)
    .values([
      { ledgerId: ledger.id, email: mum, status: "sent", sentAt },
      { ledgerId: ledger.id, email: dad, status: "skipped" },
    ])
    .run();
  testDb()
    .insert(emailDeliveries)
    .values({
      folderId: folder.id,
      ledgerId: ledger.id,
      recipientEmail: mum,
      sentAt,
      openCount: options.premium ? 2 : 0,
    })
    .run();
  return { user, folder, ledger, mum, dad };
}

test.describe("the sent archive", () => {
  test("lists what a folder sent, with each recipient's outcome, and deletes an issue", async ({
    page,
    context,
    baseURL,
  }) => {
    const { user, folder, mum, dad } = await sentIssue();
    await signIn(context, user.id, baseURL!);
    await page.goto(`/folders/${folder.id}`);
    await openMoreMenu(page);
    await page.getByRole("link", { name: "Sent", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: 'Sent from "Family"' });
    await expect(dialog.getByText("2 items · 1 delivered · 1 skipped (left)")).toBeVisible();
    await expect(dialog.getByText(/With Premium you see how many/)).toBeVisible();
    await dialog.getByRole("link", { name: /\d{4}/ }).click();

    const issue = page.getByRole("dialog", { name: /^Sent / });
    // Each item drawn as on the dashboard (ItemContent), a heading under "What was sent".
    await expect(
      issue.getByRole("heading", { level: 4, name: "Tide tables for the bay" }),
    ).toBeVisible();
    await expect(issue.getByRole("link", { name: "https://example.com/tides" })).toBeVisible();
    await expect(issue.getByRole("img", { name: "garden.jpg" })).toBeVisible();
    await expect(issue.getByRole("row", { name: new RegExp(`${mum} Delivered`) })).toBeVisible();
    await expect(
      issue.getByRole("row", { name: new RegExp(`${dad} Skipped: had left`) }),
    ).toBeVisible();
    await expect(issue.getByRole("columnheader", { name: "Opens" })).toHaveCount(0);

    await issue.getByRole("button", { name: "Delete this issue" }).click();
    await expect(page.getByText("Sent issue deleted")).toBeVisible();
    await expect(page.getByText("Nothing sent from this folder yet.")).toBeVisible();
  });

  test("shows a Premium sender the opens, saying they are estimates", async ({
    page,
    context,
    baseURL,
  }) => {
    const { user, folder, ledger, mum } = await sentIssue({ premium: true });
    await signIn(context, user.id, baseURL!);
    await page.goto(`/folders/${folder.id}/sent`);
    await expect(page.getByText("Opened by about 1 · 0 clicks")).toBeVisible();
    await expect(page.getByText(/Opens are estimates/)).toBeVisible();
    await page.goto(`/folders/${folder.id}/sent/${ledger.id}`);
    await expect(page.getByRole("row", { name: new RegExp(`${mum} Delivered 2 0`) })).toBeVisible();
  });

  test("the Save tab shows a Premium sender the opens and clicks, and a free sender not", async ({
    browser,
    baseURL,
  }) => {
    for (const premium of [true, false]) {
      const { user } = await sentIssue({ premium });
      const context = await browser.newContext();
      await signIn(context, user.id, baseURL!);
      const page = await context.newPage();
      await page.goto("/save");
      await expect(page.getByText("2 items · 1 delivered · 1 skipped (left)")).toBeVisible();
      if (premium) {
        await expect(page.getByText("Opened by about 1 · 0 clicks")).toBeVisible();
      } else {
        await expect(page.getByText(/Opened by/)).toHaveCount(0);
      }
      await context.close();
    }
  });

  test("another user's sent issue is not found", async ({ login, page }) => {
    const { folder, ledger } = await sentIssue();
    await login();
    const response = await page.goto(`/folders/${folder.id}/sent/${ledger.id}`);
    expect(response?.status()).toBe(404);
  });
});

test.describe("the web version", () => {
  test("shows the recipient the issue with its photo, unindexed, until they unsubscribe", async ({
    page,
  }) => {
    const { folder, ledger, mum, dad } = await sentIssue();
    const response = await page.goto(webVersionPath(ledger.id, mum));
    expect(response?.status()).toBe(200);
    expect(response?.headers()["x-robots-tag"]).toContain("noindex");
    await expect(page.getByRole("heading", { name: "Tide tables for the bay" })).toBeVisible();
    const photo = page.getByRole("img", { name: "garden.jpg" });
    await expectPictureLoaded(photo, 30);
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
    await expect(page.getByText(dad)).toHaveCount(0);

    // Dad was skipped (he had left): he never got this issue, so he has no web version.
    expect((await page.goto(webVersionPath(ledger.id, dad)))?.status()).toBe(404);

    testDb()
      .insert(folderRecipientStates)
      .values({ folderId: folder.id, email: mum, mailbox: mum, status: "unsubscribed" })
      .run();
    expect((await page.goto(webVersionPath(ledger.id, mum)))?.status()).toBe(404);
    testDb()
      .delete(folderRecipientStates)
      .where(eq(folderRecipientStates.folderId, folder.id))
      .run();
  });

  test("shows its pictures and styles under the pages' policy, which blocks nothing it needs", async ({
    page,
  }) => {
    const { ledger, mum } = await sentIssue();
    const violations: string[] = [];
    // Chromium reports each refusal on the console, with or without JavaScript. (Its notes
    // on the sandbox blocking scripts are about Playwright's own, the page has none.)
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(webVersionPath(ledger.id, mum));
    // A page like the app's others: scripts only with its nonce, never framed, no Referer to
    // other sites (docs/decisions/0146-web-version-as-a-page.md; its hearts post to us:
    // docs/decisions/0161-answers-on-the-web-version.md).
    expect(response?.headers()["content-security-policy"]).toMatch(
      /script-src 'nonce-[^']+' 'strict-dynamic'.*frame-ancestors 'none'/,
    );
    expect(response?.headers()["referrer-policy"]).toBe("same-origin");
    const photo = page.getByRole("img", { name: "garden.jpg" });
    await expectPictureLoaded(photo, 30);
    // The app's stylesheet applies.
    await expect(page.getByRole("heading", { name: "Our garden" })).toHaveCSS("font-size", "19px");
    expect(violations).toEqual([]);

    // The recipient can still leave from it, and post the form after (no Referer needed).
    await page.getByRole("link", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Unsubscribe" })).toBeVisible();
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();
  });
});
