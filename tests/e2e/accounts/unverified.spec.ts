import type { Locator } from "@playwright/test";
import sharp from "sharp";
import { folderRecipientStates, uploadDrafts } from "#db/schema";
import { expect, test } from "../fixtures";
import { createFolderRow, createUser, signIn, testDb, uniqueEmail } from "../support/accounts";
import { createItemRow, itemsOf } from "../support/items";
import { mailsTo, waitForMail } from "../support/mail";

/**
 * An account whose address is not confirmed may look around and save text,
 * but the server refuses uploads, Send Now, Send me a test and re-subscribe
 * requests; each refusal says why, and the page offers to resend the link
 * (docs/decisions/0044-unverified-accounts.md). That no file reaches storage is
 * checked in app/modules/uploads/uploads.server.test.ts.
 */
function photo() {
  return sharp({ create: { width: 32, height: 24, channels: 3, background: "#8ac" } })
    .jpeg()
    .toBuffer();
}

async function choosePhoto(dialog: Locator) {
  await dialog.getByLabel("Title").fill("Beach day");
  await dialog
    .getByLabel("Photos")
    .setInputFiles({ name: "beach.jpg", mimeType: "image/jpeg", buffer: await photo() });
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Our week away");
}

test.describe("an unverified account", () => {
  test.describe.configure({ timeout: 60_000 });

  test("saves text, but cannot upload, send, test or ask; the page says why", async ({
    page,
    context,
    baseURL,
  }) => {
    const sender = await createUser({ emailVerified: false });
    const mum = uniqueEmail("mum");
    const dad = uniqueEmail("dad");
    const folder = createFolderRow(sender.id, {
      name: "Family",
      recipients: [
        { name: "Mum", email: mum },
        { name: "Dad", email: dad },
      ],
    });
    createItemRow(folder.id, { type: "musing", title: "Saved earlier", note: "A few lines." });
    testDb()
      .insert(folderRecipientStates)
      .values({
        folderId: folder.id,
        email: dad,
        mailbox: dad,
        status: "unsubscribed",
        unsubscribedAt: new Date(),
      })
      .run();
    await signIn(context, sender.id, baseURL!);

    // Looking around and saving text work.
    await page.goto(`/folders/${folder.id}/add/musing`);
    const musing = page.getByRole("dialog", { name: "Add Musing" });
    await musing.getByLabel("Title").fill("A thought");
    await musing.getByLabel("Note").fill("Written before confirming.");
    await musing.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    const banner = page.getByText(/Until you do, you can save links and musings, but not upload/);
    await expect(banner).toBeVisible();

    // Add Photo: refused by the server, nothing stored.
    await page.goto(`/folders/${folder.id}/add/photo`);
    const addPhoto = page.getByRole("dialog", { name: "Add Photo" });
    await choosePhoto(addPhoto);
    await addPhoto.getByRole("button", { name: "Add", exact: true }).click();
    await expect(addPhoto.getByRole("alert")).toContainText("Confirm your email address first");
    await expect(addPhoto.getByRole("alert")).toContainText("have it sent again");

    // Upload to Multiple Folders: refused at its first step, no draft.
    await page.goto("/upload?type=photo");
    const wizard = page.getByRole("dialog", { name: "Upload to Multiple Folders" });
    await choosePhoto(wizard);
    await wizard.getByRole("button", { name: "Next" }).click();
    await expect(wizard.getByRole("alert")).toContainText("Confirm your email address first");
    expect(itemsOf(folder.id).map((item) => item.title)).toEqual(["Saved earlier", "A thought"]);
    expect(testDb().select().from(uploadDrafts).all()).not.toContainEqual(
      expect.objectContaining({ userId: sender.id }),
    );

    // Send Now and Send me a test.
    await page.goto(`/folders/${folder.id}`);
    await expect(page.getByRole("button", { name: "Send Now" })).toBeDisabled();
    await expect(page.getByText("Confirm your e-mail address to send.")).toBeVisible();
    // Whatever the page shows, the server refuses a Send Now posted anyway.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const posted = await page.request.post(`/folders/${folder.id}/send`, {
      form: { csrf },
      headers: { Origin: new URL(baseURL!).origin },
      maxRedirects: 0,
    });
    expect(posted.status()).toBe(302);
    await page.goto(`/folders/${folder.id}`);
    await expect(page.getByText("Please confirm your email address before sending.")).toBeVisible();
    await page.goto(`/folders/${folder.id}/preview`);
    await page.getByRole("button", { name: "Send me a test" }).click();
    await expect(page.getByText("Confirm your e-mail address first")).toBeVisible();

    // Asking a recipient who left to come back.
    await page.goto(`/folders/${folder.id}/recipients`);
    await page
      .getByRole("dialog")
      .getByRole("button", { name: "Request re-subscription from Dad" })
      .click();
    await expect(page.getByRole("alert").filter({ hasText: "Request Failed" })).toContainText(
      "Please confirm your email address before asking anyone to re-subscribe.",
    );

    // The page offers the link again.
    await page.goto(`/folders/${folder.id}`);
    await page.getByRole("button", { name: "Resend the link" }).click();
    await waitForMail(sender.email, /Confirm your e-mail/);
    for (const address of [mum, dad, sender.email]) {
      const received = await mailsTo(address);
      expect(received.filter((mail) => !/Confirm your e-mail/.test(mail.subject ?? ""))).toEqual(
        [],
      );
    }
  });
});
