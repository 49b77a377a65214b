import crypto from "node:crypto";
import type { Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { contentItems, folders, senderBranding, sendLedger } from "#db/schema";
import { createSentLedger } from "#db/sent-issue-factories";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, testDb, uniqueEmail } from "../support/accounts";
import { writeStoredFile } from "../support/items";
import { expectPictureLoaded } from "../support/pictures";

/**
 * The web version ("View in your browser") as a page of its own, with and
 * without JavaScript, at a phone's and a desktop's width: the issue fits,
 * its pictures load from their signed addresses, it wears the sender's look,
 * and a copy that stopped working says why in that look. Sent issues are
 * written into the database as a finished send leaves them; links are signed
 * with the server's SESSION_SECRET exactly as
 * app/modules/recipients/recipient-links.server.ts signs them.
 */
function webVersionPath(ledgerId: number, email: string) {
  const token = crypto
    .createHmac("sha256", process.env.E2E_SESSION_SECRET!)
    .update(`issue-web:${ledgerId}:${email}`)
    .digest("base64url");
  return `/v/${Buffer.from(`${ledgerId}:${email}`).toString("base64url")}.${token}`;
}

function picture(width: number, height: number, background: string) {
  return sharp({ create: { width, height, channels: 3, background } })
    .jpeg()
    .toBuffer();
}

const ACCENT = "#8a2d3b";
const ACCENT_RGB = "rgb(138, 45, 59)";

/** An issue with a link card (its picture wider than a phone) and a wide photo, sent to Mum. */
async function sentIssue(look?: { template: "classic" | "letter" | "postcard" }) {
  const user = await createUser(
    look ? { subscriptionTier: "premium", subscriptionStatus: "active" } : {},
  );
  if (look) {
    const header = await picture(600, 120, "#ddeeff");
    testDb()
      .insert(senderBranding)
      .values({
        userId: user.id,
        template: look.template,
        accentColor: ACCENT,
        headerImage: header,
        headerImageType: "image/jpeg",
        headerImageWidth: 600,
        headerImageHeight: 120,
      })
      .run();
  }
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(user.id, {
    name: "Family",
    recipients: [{ name: "Mum", email: mum }],
  });
  const sentAt = new Date();
  const cardPicture = await picture(800, 420, "#0a6");
  const photo = await picture(1200, 400, "#a60");
  const items = testDb()
    .insert(contentItems)
    .values([
      {
        folderId: folder.id,
        type: "link",
        title: "Tide tables for the bay",
        urls: ["https://example.com/tides/with/a/rather/long/address/that/goes/on?and=on&and=on"],
        previewStatus: "ready",
        previewUrl: "https://example.com/tides",
        previewTitle: "Tides this week",
        previewSiteName: "Example Tides",
        previewDescription: "High and low water for the whole bay.",
        previewImageKey: writeStoredFile(cardPicture),
        previewImageSize: cardPicture.length,
        addComment: true,
        commentText: "For the boat trip",
        sentAt,
        sortOrder: 0,
      },
      {
        folderId: folder.id,
        type: "photo",
        title: "Our garden",
        filePaths: [writeStoredFile(photo)],
        thumbnailPaths: [""],
        fileNames: ["garden.jpg"],
        fileSizes: [photo.length],
        mimeTypes: ["image/jpeg"],
        sentAt,
        sortOrder: 1,
      },
    ])
    .returning()
    .all();
  const { ledger } = createSentLedger(testDb(), folder.id, {
    itemIds: items.map((item) => item.id),
    copies: [{ email: mum }],
    sentAt,
  });
  return {
    user,
    folder,
    ledger,
    items,
    mum,
    path: webVersionPath(ledger.id, mum),
  };
}

/** Whether the page is no wider than the window: nothing to scroll sideways. */
function pageFits(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

test.describe("the web version", () => {
  for (const width of [320, 375, 1280]) {
    test(`an issue with a link card fits ${width} px and shows its pictures`, async ({ page }) => {
      const { path } = await sentIssue();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      await page.setViewportSize({ width, height: 800 });
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      expect(response?.headers()["x-robots-tag"]).toContain("noindex");
      await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
      await expect(page.getByRole("heading", { level: 1, name: "Family" })).toBeVisible();
      await expect(
        page.getByRole("heading", { level: 2, name: "Tide tables for the bay" }),
      ).toBeVisible();
      await expect(page.getByText("Ada says: For the boat trip")).toBeVisible();
      await expectPictureLoaded(
        page.getByRole("img", { name: "Tides this week", exact: true }),
        800,
      );
      await expectPictureLoaded(page.getByRole("img", { name: "garden.jpg", exact: true }), 1200);
      expect(await pageFits(page)).toBe(true);
      // The card's picture leads to the page it describes.
      await expect(page.getByRole("link", { name: "Tides this week" }).first()).toHaveAttribute(
        "href",
        /^https:\/\/example\.com\/tides\//,
      );
      // Hydrated (with JavaScript) without a complaint, and nothing refused by the policy.
      expect(errors).toEqual([]);
    });
  }

  test("wears the sender's Premium look: the template, the accent colour and the header image", async ({
    page,
    expectAccessible,
  }) => {
    const { path } = await sentIssue({ template: "postcard" });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(path);
    const masthead = page.getByRole("banner").filter({ hasText: "from Ada Lovelace" });
    await expect(masthead).toHaveCSS("background-color", ACCENT_RGB);
    // Decoration, as in the e-mail: empty alt text.
    const header = masthead.locator("img");
    await expectPictureLoaded(header, 600);
    expect(await pageFits(page)).toBe(true);
    await expectAccessible();
  });

  test("after unsubscribing, says so in the sender's look and offers to re-subscribe", async ({
    page,
    expectAccessible,
  }) => {
    const { path, mum } = await sentIssue({ template: "classic" });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(path);
    await page.getByRole("link", { name: "Unsubscribe" }).click();
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await expect(page.getByRole("heading", { name: "You're unsubscribed" })).toBeVisible();

    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(
      page.getByRole("heading", {
        level: 1,
        name: 'You unsubscribed from "Family"',
      }),
    ).toBeVisible();
    await expect(
      page.getByText(`${mum} no longer receives "Family" from Ada Lovelace`),
    ).toBeVisible();
    await expect(page.getByText("Tide tables for the bay")).toHaveCount(0);
    // Branded: the folder's name in the sender's accent colour, above a card topped with it.
    await expect(page.getByText("Family", { exact: true })).toHaveCSS("color", ACCENT_RGB);
    expect(await pageFits(page)).toBe(true);
    await expectAccessible();

    // The existing re-subscribe flow: nothing changes until its own button is pressed.
    await page.getByRole("button", { name: "Re-subscribe" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Re-subscribe" })).toBeVisible();
    await page.getByRole("button", { name: "Re-subscribe" }).click();
    await expect(
      page.getByRole("heading", { name: "You're back on the list for Family" }),
    ).toBeVisible();
    expect((await page.goto(path))?.status()).toBe(200);
    await expect(page.getByRole("img", { name: "Tides this week" })).toBeVisible();
  });

  test("after the sender deletes the issue, a page in their look says so", async ({ page }) => {
    const { path, ledger, items } = await sentIssue({ template: "postcard" });
    await page.setViewportSize({ width: 375, height: 800 });
    // As deleting a sent issue leaves it (app/modules/sending/sent-archive.server.ts).
    testDb()
      .update(sendLedger)
      .set({ deletedAt: new Date() })
      .where(eq(sendLedger.id, ledger.id))
      .run();
    for (const item of items)
      testDb().delete(contentItems).where(eq(contentItems.id, item.id)).run();

    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(
      page.getByRole("heading", {
        level: 1,
        name: "This issue is no longer available",
      }),
    ).toBeVisible();
    await expect(
      page.getByText(
        'Ada Lovelace deleted this issue of "Family", so it can no longer be read here.',
      ),
    ).toBeVisible();
    await expect(page.getByRole("banner").filter({ hasText: "from Ada Lovelace" })).toHaveCSS(
      "background-color",
      ACCENT_RGB,
    );
    await expect(page.getByRole("button", { name: "Re-subscribe" })).toHaveCount(0);
    expect(await pageFits(page)).toBe(true);
  });

  test("after the sender deletes the folder, the page says the issue went with it", async ({
    page,
  }) => {
    const { path, folder } = await sentIssue({ template: "postcard" });
    testDb().delete(folders).where(eq(folders.id, folder.id)).run();
    await page.setViewportSize({ width: 375, height: 800 });
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(
      page.getByRole("heading", {
        level: 1,
        name: "This issue is no longer available",
      }),
    ).toBeVisible();
    await expect(
      page.getByText("Its sender deleted it, with the folder it came from."),
    ).toBeVisible();
    expect(await pageFits(page)).toBe(true);

    // Only a genuine link is told why: a forged one, or one for an address never sent the
    // issue, gets the plain 404 that says nothing.
    const other = await sentIssue();
    for (const unknown of [
      `${other.path}x`,
      webVersionPath(other.ledger.id, uniqueEmail("stranger")),
    ]) {
      expect((await page.goto(unknown))?.status()).toBe(404);
      await expect(page.getByRole("heading", { level: 1 })).not.toContainText(
        "no longer available",
      );
      await expect(page.getByText("Ada Lovelace")).toHaveCount(0);
    }
  });
});
