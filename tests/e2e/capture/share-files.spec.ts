import fs from "node:fs";
import type { Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { uploadDrafts } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, testDb } from "../support/accounts";
import { createItemRow, itemsOf } from "../support/items";

/**
 * The phone's share sheet with files (docs/decisions/0196-share-target-takes-files.md):
 * Android posts the manifest's share target as a multipart form from the OS. Here a page
 * the test serves at our own origin builds that very form (the manifest's action, method,
 * enctype and field names) and the browser posts it to the real server; then the Save tap.
 */
type ShareTarget = {
  action: string;
  method: string;
  enctype: string;
  params: { title: string; text: string; url: string; files: { name: string; accept: string[] }[] };
};

async function shareTarget(page: Page): Promise<ShareTarget> {
  const manifest = await (await page.request.get("/manifest.webmanifest")).json();
  return manifest.share_target;
}

/** Opens a page that posts what the share sheet would, and returns it ready to send. */
async function shareSheet(page: Page, fields: { title?: string; text?: string; url?: string }) {
  const target = await shareTarget(page);
  const inputs = Object.entries(fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${target.params[name as "title"]}" value="${value}">`,
    )
    .join("");
  await page.route("**/test-share-sheet", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><title>Share sheet</title>
        <form action="${target.action}" method="${target.method}" enctype="${target.enctype}">
          ${inputs}
          <label>Shared file <input type="file" name="${target.params.files[0]!.name}" multiple></label>
          <button>Share</button>
        </form>`,
    }),
  );
  await page.goto("/test-share-sheet");
}

async function gardenPhoto() {
  return sharp({ create: { width: 800, height: 600, channels: 3, background: "#5a8f3c" } })
    .jpeg()
    .toBuffer();
}

test("the manifest declares a POST share target that takes photos, PDFs, Word files and clips", async ({
  request,
}) => {
  const manifest = await (await request.get("/manifest.webmanifest")).json();
  expect(manifest.share_target).toEqual({
    action: "/add/share",
    method: "POST",
    enctype: "multipart/form-data",
    params: {
      title: "title",
      text: "text",
      url: "url",
      files: [
        {
          name: "files",
          accept: expect.arrayContaining([
            "image/*",
            "image/heic",
            "application/pdf",
            "application/msword",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            ".docx",
            "video/mp4",
            "video/quicktime",
            ".mov",
          ]),
        },
      ],
    },
  });
});

test("a gallery photo is shared into the last-used folder with one Save tap", async ({
  login,
  page,
  expectAccessible,
}) => {
  const user = await login();
  createFolderRow(user.id, { name: "Family" });
  const garden = createFolderRow(user.id, { name: "Garden" });
  createItemRow(garden.id, { title: "Seeds", type: "musing", note: "Sown" });

  await shareSheet(page, {
    title: "Our tomatoes | Instagram",
    text: "First ones this year https://www.instagram.com/p/tomatoes",
  });
  await page
    .getByLabel("Shared file")
    .setInputFiles({ name: "IMG_2041.jpg", mimeType: "image/jpeg", buffer: await gardenPhoto() });
  await page.getByRole("button", { name: "Share", exact: true }).click();

  // Nothing is an item yet: the share waits for the Save tap.
  await expect(page.getByRole("heading", { name: "Save this photo" })).toBeVisible();
  expect(itemsOf(garden.id)).toHaveLength(1);
  await expect(page.getByLabel("Folder")).toHaveValue(String(garden.id));
  await expect(page.getByLabel("Title")).toHaveValue("Our tomatoes");
  await expect(page.getByLabel("Comment for your recipients")).toHaveValue(
    "First ones this year\nhttps://www.instagram.com/p/tomatoes",
  );
  await expectAccessible();

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();
  const items = itemsOf(garden.id);
  const photo = items.find((item) => item.type === "photo");
  expect(photo).toMatchObject({
    title: "Our tomatoes",
    addComment: true,
    commentText: "First ones this year\nhttps://www.instagram.com/p/tomatoes",
    mimeTypes: ["image/jpeg"],
  });
  expect(photo!.filePaths).toHaveLength(1);
  await expect(page).toHaveURL(new RegExp(`/folders/${garden.id}#item-${photo!.id}$`));
  await expect(page.locator(`#item-${photo!.id}`).getByText("Our tomatoes")).toBeVisible();
  expect(
    testDb().select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all(),
  ).toEqual([]);
});

test("an iPhone's HEIC shared from the gallery is saved as a JPEG without its GPS", async ({
  login,
  page,
}) => {
  const user = await login();
  const holiday = createFolderRow(user.id, { name: "Holiday" });

  await shareSheet(page, { title: "Pier" });
  await page.getByLabel("Shared file").setInputFiles({
    name: "IMG_2041.HEIC",
    mimeType: "image/heic",
    buffer: fs.readFileSync("tests/fixtures/photo-with-gps.heic"),
  });
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Save this photo" })).toBeVisible();
  await page.getByRole("button", { name: "Save", exact: true }).click();

  await expect(page.getByText("Content added successfully!")).toBeVisible();
  const [photo] = itemsOf(holiday.id);
  expect(photo).toMatchObject({ type: "photo", title: "Pier", mimeTypes: ["image/jpeg"] });
  const full = await page
    .locator(`#item-${photo!.id}`)
    .getByRole("link", { name: photo!.fileNames[0]! })
    .getAttribute("href");
  const meta = await sharp(await (await page.request.get(full!)).body()).metadata();
  expect(meta.format).toBe("jpeg");
  expect(meta.exif).toBeUndefined();
});

test("a shared PDF becomes a file item, and may wait for its note", async ({ login, page }) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Recipes" });
  await shareSheet(page, {});
  await page.getByLabel("Shared file").setInputFiles({
    name: "summer-menu.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"),
  });
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Save this file" })).toBeVisible();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();
  expect(itemsOf(folder.id)).toMatchObject([
    { type: "file", title: "summer menu", addComment: false, mimeTypes: ["application/pdf"] },
  ]);
});

test("a shared link without files opens Add Link on the last-used folder", async ({
  login,
  page,
}) => {
  const user = await login();
  createFolderRow(user.id, { name: "Family" });
  const reading = createFolderRow(user.id, { name: "Reading" });
  createItemRow(reading.id, { title: "Earlier", type: "musing", note: "Read" });
  await shareSheet(page, {
    title: "Bread for Sunday | The Guardian",
    url: "https://www.theguardian.com/food/bread",
  });
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Add Link to Reading" });
  await expect(dialog.getByLabel("Title")).toHaveValue("Bread for Sunday");
  // A tap while the page's script is still arriving was now and then lost; a person waits for
  // the sheet to settle, and so does this test.
  await page.waitForLoadState("networkidle");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Content captured from browser!")).toBeVisible();
  expect(itemsOf(reading.id).map((item) => item.title)).toContain("Bread for Sunday");
});

test("signed out, a share asks to log in, as /add does", async ({ page }) => {
  await shareSheet(page, { title: "Anything" });
  await page
    .getByLabel("Shared file")
    .setInputFiles({ name: "IMG_1.jpg", mimeType: "image/jpeg", buffer: await gardenPhoto() });
  await page.getByRole("button", { name: "Share", exact: true }).click();
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fadd%2Fshare$/);
  await expect(page.getByText("Please log in")).toBeVisible();
});

test("another site's page cannot post a share", async ({ login, page }) => {
  const user = await login();
  createFolderRow(user.id, { name: "Family" });
  const answer = await page.request.post("/add/share", {
    headers: { "Sec-Fetch-Site": "cross-site" },
    multipart: {
      files: { name: "IMG_1.jpg", mimeType: "image/jpeg", buffer: await gardenPhoto() },
    },
    maxRedirects: 0,
  });
  expect(answer.status()).toBe(403);
  expect(
    testDb().select().from(uploadDrafts).where(eq(uploadDrafts.userId, user.id)).all(),
  ).toEqual([]);
});
