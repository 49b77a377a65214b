import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { holdScripts } from "../support/held-scripts";
import { createItemRow } from "../support/items";

/**
 * On a slow phone the sheet shows before its script has run, and people start typing. When the
 * script arrives, the sheet's first field used to take the focus, so the rest of what they typed
 * went into the title.
 */
test("typing begun before the page's script keeps its place when the script arrives", async ({
  page,
  login,
  javaScriptEnabled,
}) => {
  test.skip(!javaScriptEnabled, "Without JavaScript nothing moves the focus.");
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Notes" });
  const item = createItemRow(folder.id, { type: "musing", title: "Earlier", note: "First." });

  const scripts = await holdScripts(page);
  await page.goto(`/folders/${folder.id}/items/${item.id}/edit`, { waitUntil: "commit" });
  const dialog = page.getByRole("dialog", { name: "Edit Item" });
  const note = dialog.getByLabel("Note");
  await note.click();
  await note.press("End");
  await note.pressSequentially(" Then");

  scripts.release();
  // The note's counter shows once the sheet's script has run (and any focus moved with it).
  await expect(dialog.getByText(/^\d+\/1000$/)).toBeVisible();
  await note.pressSequentially(" more.");
  await expect(note).toBeFocused();
  await expect(note).toHaveValue("First. Then more.");
  await expect(dialog.getByLabel("Title")).toHaveValue("Earlier");
});
