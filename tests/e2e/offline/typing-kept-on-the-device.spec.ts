import type { BrowserContext, Page } from "@playwright/test";
import sharp from "sharp";
import { expect, test } from "../fixtures";
import { createFolderRow } from "../support/accounts";
import { itemsOf } from "../support/items";

/**
 * Issue 45: nothing typed is lost when the signal drops. With JavaScript, an item sheet keeps
 * its typing and picked files in the browser, and a submit made with no connection waits in the
 * folder until the signal returns (docs/decisions/0200-typing-kept-on-the-device.md,
 * 0216-saves-wait-on-the-phone.md).
 */
test.use({ viewport: { width: 375, height: 740 } });

/** A small real JPEG. */
async function photo(name: string) {
  const buffer = await sharp({
    create: { width: 320, height: 240, channels: 3, background: { r: 90, g: 140, b: 200 } },
  })
    .jpeg()
    .toBuffer();
  return { name, mimeType: "image/jpeg", buffer };
}

/** A musing typed into Add Musing, then Add pressed with no signal: it waits on the phone. */
async function addMusingOffline(
  page: Page,
  context: BrowserContext,
  folderId: number,
  { title, note }: { title: string; note: string },
) {
  await page.goto(`/folders/${folderId}/add/musing`);
  const dialog = page.getByRole("dialog", { name: "Add Musing" });
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Note").fill(note);
  await context.setOffline(true);
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  return dialog;
}

test.describe("typing kept on the device", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "It is the script that keeps it.");

  test("a musing added with no signal waits in the folder and is saved once, with every character, when it returns", async ({
    page,
    context,
    login,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    const note = "Dear Gran — the garden's in bloom 🌷, and Sam says « bonjour ».";
    const dialog = await addMusingOffline(page, context, folder.id, {
      title: "From the train",
      note,
    });
    // Back in the folder, the save shows as pending.
    await expect(dialog).toHaveCount(0);
    const waiting = page.getByRole("region", { name: "Waiting on this phone" });
    await expect(waiting.getByRole("listitem")).toHaveCount(1);
    await expect(waiting.getByText("From the train")).toBeVisible();
    await expect(
      waiting.getByText("Saved on this phone, uploads when you're back online."),
    ).toBeVisible();
    expect(itemsOf(folder.id)).toEqual([]);

    await context.setOffline(false);
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    await expect(waiting).toHaveCount(0);
    await expect(
      page.getByRole("region", { name: "Saved items" }).getByText("From the train"),
    ).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([{ type: "musing", title: "From the train", note }]);

    // Saved, so forgotten: the sheet opens empty again.
    await page.goto(`/folders/${folder.id}/add/musing`);
    await expect(dialog.getByLabel("Note")).toHaveValue("");
    await expect(dialog.getByRole("status")).toHaveCount(0);
  });

  test("a save kept with no signal goes from the next page opened, after the first was closed", async ({
    page,
    context,
    login,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    await addMusingOffline(page, context, folder.id, {
      title: "Kept through a closed tab",
      note: "The phone slept, the tab was closed.",
    });
    await expect(page.getByRole("region", { name: "Waiting on this phone" })).toBeVisible();
    await page.close();

    await context.setOffline(false);
    const later = await context.newPage();
    await later.goto("/profile");
    await expect.poll(() => itemsOf(folder.id).length).toBe(1);
    expect(itemsOf(folder.id)).toMatchObject([
      { title: "Kept through a closed tab", note: "The phone slept, the tab was closed." },
    ]);
    await later.goto(`/folders/${folder.id}`);
    await expect(later.getByRole("region", { name: "Waiting on this phone" })).toHaveCount(0);
  });

  test("a save whose answer was lost with its page goes again at once from the next page, and is saved once", async ({
    page,
    context,
    login,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Notes" });
    await addMusingOffline(page, context, folder.id, {
      title: "Answer lost on the way",
      note: "The tab went while the server said yes.",
    });
    await expect(page.getByRole("region", { name: "Waiting on this phone" })).toBeVisible();

    // The server saves it, but the page goes before the answer reaches it.
    let reachedServer!: () => void;
    const saved = new Promise<void>((resolve) => {
      reachedServer = resolve;
    });
    await context.route("**/add/musing.data*", async (route) => {
      await route.fetch();
      reachedServer();
    });
    await context.setOffline(false);
    await saved;
    await page.close();
    await context.unrouteAll({ behavior: "ignoreErrors" });
    expect(itemsOf(folder.id)).toHaveLength(1);

    // Its send died with its page: the next page sends it again at once, and the key keeps it one.
    const later = await context.newPage();
    await later.goto(`/folders/${folder.id}`);
    await expect(later.getByRole("region", { name: "Waiting on this phone" })).toHaveCount(0);
    await expect(
      later.getByRole("region", { name: "Saved items" }).getByText("Answer lost on the way"),
    ).toBeVisible();
    expect(itemsOf(folder.id)).toHaveLength(1);
  });

  test("a photo added with no signal uploads once at 50 kbit/s when the signal returns", async ({
    page,
    context,
    login,
  }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Walks" });
    await page.goto(`/folders/${folder.id}/add/photo`);
    const dialog = page.getByRole("dialog", { name: "Add Photo" });
    await dialog.getByLabel("Photos").setInputFiles([await photo("hills.jpg")]);
    await dialog.getByLabel("Title").fill("The hills at dawn");
    await dialog.getByRole("textbox", { name: "Comment" }).fill("Sam ran the whole way up");

    // Chromium's own network emulation, which also gives the weak signal below.
    const network = await context.newCDPSession(page);
    const emulate = (offline: boolean, bitsPerSecond: number) =>
      network.send("Network.emulateNetworkConditions", {
        offline,
        latency: bitsPerSecond > 0 ? 300 : 0,
        downloadThroughput: bitsPerSecond > 0 ? bitsPerSecond / 8 : -1,
        uploadThroughput: bitsPerSecond > 0 ? bitsPerSecond / 8 : -1,
      });
    await emulate(true, 0);
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    const waiting = page.getByRole("region", { name: "Waiting on this phone" });
    await expect(waiting.getByText("The hills at dawn")).toBeVisible();
    expect(itemsOf(folder.id)).toEqual([]);

    // The signal comes back weak: 50 kbit/s each way.
    await emulate(false, 50_000);
    await expect(waiting.getByText("Uploading…")).toBeVisible();
    await expect(page.getByText("Content added successfully!")).toBeVisible({ timeout: 30_000 });
    await emulate(false, 0);
    const items = itemsOf(folder.id);
    expect(items).toMatchObject([
      { type: "photo", title: "The hills at dawn", commentText: "Sam ran the whole way up" },
    ]);
    expect(items[0]!.filePaths).toHaveLength(1);
  });

  test("a picked photo stays picked across a reload", async ({ page, login }) => {
    const user = await login();
    const folder = createFolderRow(user.id, { name: "Walks" });
    await page.goto(`/folders/${folder.id}/add/photo`);
    const dialog = page.getByRole("dialog", { name: "Add Photo" });
    await dialog.getByLabel("Photos").setInputFiles([await photo("beach.jpg")]);
    await dialog.getByLabel("Title").fill("The beach");

    await page.reload();
    await expect(dialog.getByText("What you typed here before is back.")).toBeVisible();
    await expect(dialog.getByLabel("Title")).toHaveValue("The beach");
    await expect
      .poll(() =>
        dialog.getByLabel("Photos").evaluate((input: HTMLInputElement) => input.files?.[0]?.name),
      )
      .toBe("beach.jpg");
    await dialog.getByRole("textbox", { name: "Comment" }).fill("Cold but sunny");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await expect(page.getByText("Content added successfully!")).toBeVisible();
    expect(itemsOf(folder.id)).toMatchObject([{ type: "photo", title: "The beach" }]);
    expect(itemsOf(folder.id)[0]!.filePaths).toHaveLength(1);
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

test("a photo sent over a 50 kbit/s signal is saved once, with its photo", async ({
  page,
  context,
  login,
}) => {
  const user = await login();
  const folder = createFolderRow(user.id, { name: "Walks" });
  await page.goto(`/folders/${folder.id}/add/photo`);
  const dialog = page.getByRole("dialog", { name: "Add Photo" });
  await dialog.getByLabel("Photos").setInputFiles([await photo("lane.jpg")]);
  await dialog.getByLabel("Title").fill("Down the lane");
  await dialog.getByRole("textbox", { name: "Comment" }).fill("Blackberries soon");

  const network = await context.newCDPSession(page);
  await network.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 300,
    downloadThroughput: 50_000 / 8,
    uploadThroughput: 50_000 / 8,
  });
  await dialog.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.getByText("Content added successfully!")).toBeVisible({ timeout: 60_000 });
  const items = itemsOf(folder.id);
  expect(items).toMatchObject([{ type: "photo", title: "Down the lane" }]);
  expect(items[0]!.fileNames).toEqual(["lane.jpg"]);
});
