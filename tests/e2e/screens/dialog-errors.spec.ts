import { expect, test } from "../fixtures";
import { createFolderRow, createUser } from "../support/accounts";
import { createItemRow } from "../support/items";

/**
 * A dialog for something missing or someone else's answers 404 inside the
 * dialog: the dashboard stays around it, and Back returns to the folder.
 */
test("an item that is not yours answers 404 inside the dialog, over your dashboard", async ({
  page,
  login,
}) => {
  const me = await login();
  const mine = createFolderRow(me.id, { name: "Family" });
  const stranger = await createUser();
  const theirs = createItemRow(createFolderRow(stranger.id, { name: "Secrets" }).id, {
    title: "Their diary",
  });

  const response = await page.goto(`/folders/${mine.id}/items/${theirs.id}/edit`);
  expect(response?.status()).toBe(404);
  const dialog = page.getByRole("dialog", { name: "Not Found" });
  await expect(dialog).toBeVisible();
  await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
  await expect(page.getByText("Their diary")).toHaveCount(0);
  await expect(page.getByText("Secrets")).toHaveCount(0);

  await dialog.getByRole("link", { name: "Back" }).click();
  await expect(page).toHaveURL(new RegExp(`/folders/${mine.id}$`));
  await expect(page.getByRole("dialog")).toHaveCount(0);
});

test("an upload draft that is not yours answers 404 inside the wizard's dialog", async ({
  page,
  login,
}) => {
  const me = await login();
  createFolderRow(me.id, { name: "Family" });

  const response = await page.goto("/upload/not-a-draft/folders");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("dialog", { name: "Not Found" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "My Folders" })).toBeVisible();
});
