import path from "node:path";
import { Readable } from "node:stream";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { contentItems, folders, sendLedger } from "#db/schema";
import { LocalDiskStorage } from "#storage/local-disk";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb } from "../support/accounts";
import { mailsTo, waitForMail } from "../support/mail";

function addItem(values: typeof contentItems.$inferInsert) {
  return testDb().insert(contentItems).values(values).returning().get();
}

/**
 * The shared accessibility check waits forever on the sandboxed frame (axe
 * cannot run inside a frame without scripts), so the dialog is checked here
 * with the frame left out; its content is the e-mail, not the app.
 */
async function expectDialogAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).exclude('iframe[title="Email preview"]').analyze();
  const blocking = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.length})`);
  expect(blocking, "serious or critical accessibility violations").toEqual([]);
}

function itemsOf(folderId: number) {
  return testDb().select().from(contentItems).where(eq(contentItems.folderId, folderId)).all();
}

/** A folder with a link and a musing, as the tests below need it. */
async function folderWithLinkAndMusing(name = "Family") {
  const user = await createUser();
  const folder = createFolderRow(user.id, { name, personalSignoff: "Love,\nAda" });
  addItem({
    folderId: folder.id,
    type: "link",
    title: "Tide tables for the bay",
    urls: ["https://example.com/tides?week=3&place=bay"],
    addComment: true,
    commentText: "We could go next weekend.",
    responseExpectation: "expecting",
    sortOrder: 0,
  });
  addItem({
    folderId: folder.id,
    type: "musing",
    title: "Thinking of you",
    note: "First line\nSecond line",
    sortOrder: 1,
  });
  return { user, folder };
}

test.describe("email preview", () => {
  test("shows the newsletter and sends the sender a test, leaving the folder as it was", async ({
    page,
    context,
    baseURL,
    javaScriptEnabled,
  }) => {
    const { user, folder } = await folderWithLinkAndMusing();
    await signIn(context, user.id, baseURL!);

    await page.goto(`/folders/${folder.id}`);
    await page.getByRole("link", { name: "Email Preview" }).click();
    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}/preview$`));
    const dialog = page.getByRole("dialog", { name: "Email Preview" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText('"Family" from Ada: 2 things')).toBeVisible();
    const frame = dialog.frameLocator('iframe[title="Email preview"]');
    await expect(frame.getByRole("heading", { level: 1, name: "Family" })).toBeVisible();
    // On a computer the 600 px e-mail shows at its own width, not squeezed (issue 49).
    const shown = await dialog.locator('iframe[title="Email preview"]').boundingBox();
    expect(shown?.width).toBeGreaterThanOrEqual(600);
    expect(shown?.height).toBeGreaterThanOrEqual(400);
    await expect(frame.getByText("Tide tables for the bay")).toBeVisible();
    await expect(frame.getByText("Ada says:")).toBeVisible();
    await expect(frame.getByText(`added ${user.email} to the folder`)).toBeVisible();
    await expect(frame.getByText("Hearts and notes you send go only to Ada.")).toBeVisible();
    // Each item's answer link, which in the preview points nowhere.
    await expect(frame.getByRole("link", { name: "♥ Send Ada a heart or a note" })).toHaveCount(2);
    await expect(
      frame.getByRole("link", { name: "♥ Send Ada a heart or a note" }).first(),
    ).toHaveAttribute("href", "#answer-preview");
    await expect(
      dialog.getByText(
        /^This e-mail is \d+(\.\d)? KB \(text and links only, no attachments\), within the 20\.0 MB this folder can send\.$/,
      ),
    ).toBeVisible();
    await expect(dialog.locator("iframe")).toHaveAttribute("sandbox", "allow-same-origin");
    // axe runs as a script: the page without JavaScript is the same server HTML.
    if (javaScriptEnabled) await expectDialogAccessible(page);

    await dialog.getByRole("button", { name: "Send me a test" }).click();
    await expect(page.getByText(`Test sent to ${user.email}`)).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}/preview$`));

    const mail = await waitForMail(user.email, /\[Test\]/);
    expect(mail.subject).toBe('[Test] "Family" from Ada: 2 things');
    expect(mail.replyTo?.value[0]?.address).toBe(user.email);
    const html = String(mail.html);
    expect(html).toContain("Tide tables for the bay");
    expect(html).toContain('href="https://example.com/tides?week=3&amp;place=bay"');
    expect(html).toContain("First line<br>Second line");
    expect(html.match(/<a href="#answer-preview">♥ Send Ada a heart or a note<\/a>/g)).toHaveLength(
      2,
    );
    expect(mail.text).toContain("Tide tables for the bay");
    expect(mail.text).toContain("https://example.com/tides?week=3&place=bay");
    expect(mail.text).toContain("Ada says: We could go next weekend.");
    expect(mail.text).toContain("Love,\nAda");
    expect(mail.attachments).toHaveLength(0);
    // No issue went to Mum (its subject starts with the folder's name; other tests' welcomes to
    // mum@example.com name it later).
    expect(
      (await mailsTo("mum@example.com")).filter((m) => m.subject?.startsWith('"Family"')),
    ).toEqual([]);

    // Nothing was sent for real: items unsent, folder and ledger untouched.
    expect(itemsOf(folder.id).map((item) => item.sentAt)).toEqual([null, null]);
    const after = testDb().select().from(folders).where(eq(folders.id, folder.id)).get();
    expect(after?.lastSentAt).toBeNull();
    expect(after?.nextSendAt?.getTime()).toBe(folder.nextSendAt?.getTime());
    expect(
      testDb().select().from(sendLedger).where(eq(sendLedger.folderId, folder.id)).all(),
    ).toEqual([]);
  });

  test("shows photos from the sender's own files and sends them inline", async ({
    login,
    page,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Holiday" });
    const storage = new LocalDiskStorage(path.join(process.env.E2E_DATA_DIR!, "uploads"));
    const jpeg = await sharp({
      create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 120, b: 40 } },
    })
      .jpeg()
      .toBuffer();
    const { key, size } = await storage.put(Readable.from([jpeg]));
    const photo = addItem({
      folderId: folder.id,
      type: "photo",
      title: "The beach",
      filePaths: [key],
      fileNames: ["beach.jpg"],
      fileSizes: [size],
      mimeTypes: ["image/jpeg"],
      thumbnailPaths: [""],
      addComment: true,
      commentText: "Warm sand",
    });

    await page.goto(`/folders/${folder.id}/preview`);
    const frame = page.frameLocator('iframe[title="Email preview"]');
    const image = frame.getByRole("img", { name: "beach.jpg" });
    await expect(image).toHaveAttribute("src", `/files/${key}`);
    // The sandboxed frame loads the owner's file with the session cookie.
    await expect
      .poll(() => image.evaluate((element: HTMLImageElement) => element.naturalWidth))
      .toBe(64);

    await page.getByRole("button", { name: "Send me a test" }).click();
    await expect(page.getByText(`Test sent to ${user.email}`)).toBeVisible();
    const mail = await waitForMail(user.email, /\[Test\] "Holiday"/);
    // mailparser turns cid: references it can resolve into data: URLs.
    expect(String(mail.html)).toMatch(/<img src="data:image\/jpeg;base64,[^"]+" alt="beach\.jpg"/);
    expect(mail.attachments.map((a) => [a.filename, a.cid, a.contentDisposition])).toEqual([
      ["beach.jpg", `photo-${photo.id}-0@thoughtfully`, "inline"],
    ]);
    expect(mail.attachments[0]?.content.equals(jpeg)).toBe(true);
    expect(itemsOf(folder.id).map((item) => item.sentAt)).toEqual([null]);
  });

  test("says when the folder is empty", async ({ login, page }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Empty" });
    await page.goto(`/folders/${folder.id}/preview`);
    const dialog = page.getByRole("dialog", { name: "Email Preview" });
    await expect(dialog.getByText(/This folder is empty/)).toBeVisible();
    await expect(dialog.locator("iframe")).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Send me a test" })).toHaveCount(0);
  });

  test("another user's preview answers 404 and sends nothing", async ({ login, page }) => {
    const { user: owner, folder } = await folderWithLinkAndMusing("Private");
    const intruder = await login();
    const response = await page.goto(`/folders/${folder.id}/preview`);
    expect(response?.status()).toBe(404);

    await page.goto("/");
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const post = await page.request.post(`/folders/${folder.id}/preview`, {
      form: { csrf },
      maxRedirects: 0,
    });
    expect(post.status()).toBe(404);
    expect(await mailsTo(intruder.email)).toEqual([]);
    expect(await mailsTo(owner.email)).toEqual([]);
    expect(itemsOf(folder.id).map((item) => item.sentAt)).toEqual([null, null]);
  });
});

test.describe("email preview on a phone", () => {
  test("fills the screen, with Send me a test and Send Now (asking first) in it", async ({
    page,
    context,
    baseURL,
  }, testInfo) => {
    const { user, folder } = await folderWithLinkAndMusing("Phone family");
    const mum = `mum-${folder.id}@example.com`;
    testDb()
      .update(folders)
      .set({ recipients: [{ name: "Mum", email: mum }] })
      .where(eq(folders.id, folder.id))
      .run();
    await signIn(context, user.id, baseURL!);
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`/folders/${folder.id}/preview`);
    const dialog = page.getByRole("dialog", { name: "Email Preview" });
    await expect(dialog).toBeVisible();
    const box = (await dialog.boundingBox())!;
    expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, 375, 740]);
    // The e-mail is the one thing that scrolls: the sheet itself does not.
    expect(
      await dialog.evaluate((element) => element.scrollHeight - element.clientHeight),
    ).toBeLessThanOrEqual(0);
    const frame = (await dialog.locator("iframe").boundingBox())!;
    expect(frame.height).toBeGreaterThan(740 * 0.45);
    await expect(dialog.getByText(/^This e-mail is .* this folder can send\.$/)).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Send me a test" })).toBeInViewport();
    await expect(dialog.getByRole("link", { name: "Send Now" })).toBeInViewport();
    const shot = testInfo.outputPath("preview-phone.png");
    await page.screenshot({ path: shot });
    await testInfo.attach("preview-phone.png", { path: shot, contentType: "image/png" });

    await dialog.getByRole("link", { name: "Send Now" }).click();
    const question = page.getByRole("dialog", { name: "Send 2 items to Mum now?" });
    await expect(question).toBeVisible();
    await question.getByRole("link", { name: "Back" }).click();
    await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}/preview$`));
    expect(itemsOf(folder.id).map((item) => item.sentAt)).toEqual([null, null]);

    await page
      .getByRole("dialog", { name: "Email Preview" })
      .getByRole("link", { name: "Send Now" })
      .click();
    await question.getByRole("button", { name: "Send Now" }).click();
    await expect(page.getByText("Your folder is on its way")).toBeVisible();
    await waitForMail(mum, /Phone family/);
    expect(itemsOf(folder.id).every((item) => item.sentAt !== null)).toBe(true);
  });

  test("a Send Now that cannot send is disabled there, with the reason", async ({
    page,
    context,
    baseURL,
  }) => {
    const { user, folder } = await folderWithLinkAndMusing("Paused family");
    testDb().update(folders).set({ isPaused: true }).where(eq(folders.id, folder.id)).run();
    await signIn(context, user.id, baseURL!);
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`/folders/${folder.id}/preview`);
    const dialog = page.getByRole("dialog", { name: "Email Preview" });
    const sendNow = dialog.getByRole("button", { name: "Send Now" });
    await expect(sendNow).toBeDisabled();
    await expect(sendNow).toHaveAccessibleDescription("Delivery is paused: re-start it to send.");
  });
});
