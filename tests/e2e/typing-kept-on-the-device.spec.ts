import { expect, test } from "./fixtures";
import { createFolderRow } from "./support/accounts";
import { itemsOf } from "./support/items";

/**
 * Issue 45: nothing typed is lost when the signal drops. With JavaScript, an item sheet keeps
 * its typing in the browser as it is typed, and a submit made with no connection waits for it
 * (docs/decisions/0200-typing-kept-on-the-device.md).
 */
test.use({ viewport: { width: 375, height: 740 } });

test.describe("typing kept on the device", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "It is the script that keeps it.");

  test("a musing added with no signal is saved once, with every character, when it returns", async ({
    page,
    context,
    login,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    const note = "Dear Gran — the garden's in bloom 🌷, and Sam says « bonjour ».";
    await page.goto(`/folders/${folder.id}/add/musing`);
    const dialog = page.getByRole("dialog", { name: "Add Musing" });
    await dialog.getByLabel("Title").fill("From the train");
    await dialog.getByLabel("Note").fill(note);

    await context.setOffline(true);
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(
      dialog.getByText("Saved on this phone, uploads when you're back online."),
    ).toBeVisible();
    await expect(dialog.getByLabel("Note")).toHaveValue(note);
    expect(itemsOf(folder.id)).toEqual([]);

    await context.setOffline(false);
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([{ type: "musing", title: "From the train", note }]);

    // Saved, so forgotten: the sheet opens empty again.
    await page.goto(`/folders/${folder.id}/add/musing`);
    await expect(dialog.getByLabel("Note")).toHaveValue("");
    await expect(dialog.getByRole("status")).toHaveCount(0);
  });

  test("a reload brings back what was typed, and Start over clears it", async ({ page, login }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Reading" });
    await page.goto(`/folders/${folder.id}/add/link`);
    const dialog = page.getByRole("dialog", { name: "Add Link" });
    await dialog.getByLabel("Title").fill("Slow mornings");
    await dialog.getByLabel("Ask a question").check();
    await dialog.getByRole("textbox", { name: "Question" }).fill("Shall we try it?");

    await page.reload();
    await expect(dialog.getByText("What you typed here before is back.")).toBeVisible();
    await expect(dialog.getByLabel("Title")).toHaveValue("Slow mornings");
    await expect(dialog.getByLabel("Ask a question")).toBeChecked();
    await expect(dialog.getByRole("textbox", { name: "Question" })).toHaveValue("Shall we try it?");

    await dialog.getByRole("button", { name: "Start over" }).click();
    await expect(dialog.getByLabel("Title")).toHaveValue("");
    await page.reload();
    await expect(dialog.getByLabel("Title")).toHaveValue("");
    await expect(dialog.getByText("What you typed here before is back.")).toHaveCount(0);
  });
});

test("the same form sent again, as a browser retries, saves once", async ({ page, login }) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Notes" });
  await page.goto(`/folders/${folder.id}/add/musing`);
  const dialog = page.getByRole("dialog", { name: "Add Musing" });
  await dialog.getByLabel("Title").fill("Once");
  await dialog.getByLabel("Note").fill("Only once, however often it is sent.");
  // What the browser sends again when it retries: this very form, with its one-time key.
  const form = {
    csrf: (await dialog.locator('input[name="csrf"]').getAttribute("value")) ?? "",
    oneTimeKey: (await dialog.locator('input[name="oneTimeKey"]').getAttribute("value")) ?? "",
    title: "Once",
    note: "Only once, however often it is sent.",
  };
  expect(form.oneTimeKey).toMatch(/^[0-9a-f-]{36}$/);

  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible();
  const [item] = itemsOf(folder.id);
  expect(item).toMatchObject({ title: "Once" });

  const again = await page.request.post(`/folders/${folder.id}/add/musing`, {
    form,
    maxRedirects: 0,
  });
  expect(again.status()).toBe(302);
  expect(again.headers().location).toBe(`/folders/${folder.id}#item-${item!.id}`);
  expect(itemsOf(folder.id)).toHaveLength(1);
});
