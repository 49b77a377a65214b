import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { itemsOf } from "../support/items";

/** Enough of a PDF for the server's content check (its first bytes). */
const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< >>\n%%EOF\n");

/**
 * A browser writes a file's name into the upload as it is, `;`, `=` and `'`
 * included (docs/decisions/0102-multipart-names-of-any-bytes.md): the upload
 * must keep that name, not fail.
 */
test("a file named with ; = ' and accents is added under its own name", async ({ page, login }) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Paperwork" });
  await page.goto(`/folders/${folder.id}/add/file`);
  const dialog = page.getByRole("dialog", { name: "Add File" });
  await dialog.getByLabel("Title").fill("Odd names");
  const name = "Tom's report; v=2 – café.pdf";
  await dialog
    .getByLabel("Files")
    .setInputFiles([{ name, mimeType: "application/pdf", buffer: PDF }]);
  await dialog.getByLabel("Leave a comment").check();
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Kept as named");
  await dialog.getByRole("button", { name: "Add", exact: true }).click();

  await expect(page).toHaveURL(new RegExp(`/folders/${folder.id}#item-\\d+$`));
  await expect(page.getByRole("link", { name })).toBeVisible();
  expect(itemsOf(folder.id).map((item) => item.fileNames)).toEqual([[name]]);
});
