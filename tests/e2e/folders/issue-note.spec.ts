import { expect, test } from "../fixtures";
import { createFolderRow, uniqueEmail } from "../support/accounts";
import { openMoreMenu } from "../support/folder-screen";
import { createItemRow } from "../support/items";
import { linkIn, waitForMail } from "../support/mail";

/**
 * A few words for one issue (docs/decisions/0212-a-note-for-one-issue.md), on a
 * phone: written on the folder page, shown in the Email Preview, at the top of
 * the e-mail Mum gets over SMTP and of its web version, then gone from the folder.
 */
test.use({ viewport: { width: 375, height: 740 } });

const NOTE = "Big week: Sam started school.";

test("the sender writes a note for the next issue; Mum reads it at the top; the send clears it", async ({
  page,
  login,
  expectAccessible,
}) => {
  const sender = await login({ firstName: "Ada" });
  const mum = uniqueEmail("mum");
  const folder = createFolderRow(sender.id, {
    name: "Family news",
    recipients: [{ name: "Mum", email: mum }],
  });
  createItemRow(folder.id, { type: "musing", title: "Sunday lunch", note: "Roast and pie." });

  await page.goto(`/folders/${folder.id}`);
  await openMoreMenu(page);
  await page.getByRole("link", { name: "Note for the Next Issue" }).click();
  const dialog = page.getByRole("dialog", { name: "A few words for the next issue" });
  await expect(dialog).toBeVisible();
  await expectAccessible();
  await dialog.getByLabel('At the top of the next "Family news", for this issue only').fill(NOTE);
  await dialog.getByRole("button", { name: "Save note" }).click();
  await expect(page.getByText("Note saved")).toBeVisible();
  const shown = page.getByRole("region", { name: "At the top of the next issue" });
  await expect(shown.getByText(NOTE)).toBeVisible();

  await page.getByRole("link", { name: "Email Preview" }).click();
  const frame = page
    .getByRole("dialog", { name: "Email Preview" })
    .frameLocator('iframe[title="Email preview"]');
  await expect(frame.getByText(NOTE)).toBeVisible();

  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("link", { name: "Send Now" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Send Now" }).click();
  await expect(page.getByText("Your folder is on its way (1 message).")).toBeVisible();
  await expect(shown).toHaveCount(0);
  // The sender's own record of the issue keeps the note it carried.
  await page.goto(`/folders/${folder.id}/sent`);
  await page.getByRole("dialog").getByRole("link", { name: /\d{4}/ }).click();
  await expect(page.getByRole("dialog", { name: /^Sent / }).getByText(NOTE)).toBeVisible();

  const letter = await waitForMail(mum, /Family news/);
  const html = String(letter.html);
  expect(html.indexOf(NOTE)).toBeGreaterThan(-1);
  expect(html.indexOf(NOTE)).toBeLessThan(html.indexOf("Sunday lunch"));
  await page.goto(linkIn(letter, "/v/"));
  const note = page.getByText(NOTE);
  await expect(note).toBeVisible();
  const firstItem = page.getByRole("heading", { name: "Sunday lunch" });
  expect((await note.boundingBox())!.y).toBeLessThan((await firstItem.boundingBox())!.y);
});

test("an empty note removes the one there was", async ({ page, login }) => {
  const sender = await login();
  const folder = createFolderRow(sender.id, { name: "Garden", issueNote: NOTE });
  await page.goto(`/folders/${folder.id}`);
  await page.getByRole("link", { name: "Change note" }).click();
  const field = page.getByLabel('At the top of the next "Garden", for this issue only');
  await expect(field).toHaveValue(NOTE);
  await field.fill("");
  await page.getByRole("button", { name: "Save note" }).click();
  await expect(page.getByText("Note removed")).toBeVisible();
  await expect(page.getByText(NOTE)).toHaveCount(0);
});
